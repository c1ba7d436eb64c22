package io.github.redislock.internal;

import io.github.redislock.internal.kind.ExclusiveKind;
import java.time.Duration;
import java.util.function.Consumer;

/** Holds for unit tests: of the plain kind on a fake backend, acquired now, valid for the lease. */
final class TestHolds {
  private TestHolds() {}

  /**
   * A hold of {@code name} with {@code token}, acquired at {@code ticker}'s now.
   *
   * @param revoke what its loss revokes locally, or {@code null} for nothing
   */
  static Hold of(
      FakeBackend backend,
      ManualTicker ticker,
      Duration lease,
      LockName name,
      String token,
      Consumer<Hold> revoke) {
    long now = ticker.read();
    return new Hold(
        new ExclusiveKind(backend),
        revoke,
        name.name,
        name.keys,
        token,
        0,
        null,
        now,
        now + lease.toNanos(),
        ticker);
  }
}
