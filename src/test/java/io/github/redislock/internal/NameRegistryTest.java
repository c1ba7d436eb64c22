package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.internal.backend.LockKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The names a family's threads use: a name has state while it has users (holders and waiters) and
 * none after its last, so that the registry stays as small as the set of names in use.
 */
class NameRegistryTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);
  private final NameRegistry registry = new NameRegistry(new Lifecycle(), false);
  private final LockName name = new LockName("a", LockKeys.of("a"), -1);

  private Hold hold(String token) {
    return TestHolds.of(backend, ticker, LEASE, name, token, null);
  }

  @Test
  void aNameHasStateWhileItHasUsersAndNoneAfterItsLast() {
    NameState first = registry.enter(name);
    NameState second = registry.enter(name);
    assertThat(second).isSameAs(first);
    assertThat(registry.get("a")).isSameAs(first);
    registry.exit(first);
    assertThat(registry.get("a")).isSameAs(first);
    registry.exit(first);
    assertThat(registry.get("a")).isNull();
    assertThat(registry.all()).isEmpty();
  }

  @Test
  void anExitFromAStateThatWentLeavesTheNameWithItsNewState() {
    NameState gone = registry.enter(name);
    registry.exit(gone);
    NameState fresh = registry.enter(name);
    assertThat(fresh).isNotSameAs(gone);
    registry.exit(gone); // a late exit of a user of the old state
    assertThat(registry.get("a")).isSameAs(fresh);
    registry.exit(fresh);
    assertThat(registry.all()).isEmpty();
  }

  @Test
  void dropGivesUpTheLocalLockWhateverItsCountAndExits() {
    NameState state = registry.enter(name);
    state.local.lock();
    assertThat(state.local.reenter()).isTrue();
    assertThat(registry.drop(state)).isTrue();
    assertThat(state.local.isHeldByCurrentThread()).isFalse();
    assertThat(registry.all()).isEmpty();
  }

  @Test
  void dropOfARevokedLockIsRefusedAndLeavesTheExitToTheRevocation() {
    NameState state = registry.enter(name);
    state.local.lock();
    assertThat(state.local.revoke(state.local.ownedEpoch())).isTrue();
    assertThat(registry.drop(state)).isFalse();
    assertThat(registry.get("a")).isSameAs(state);
    registry.exit(state); // as the revocation does for the former owner
    assertThat(registry.all()).isEmpty();
  }

  @Test
  void everyHoldIsVisitedOnceHeldOrHandedOff() {
    NameState state = registry.enter(name);
    Hold held = hold("held");
    Hold handed = hold("handed");
    List<Hold> seen = new ArrayList<>();
    state.hold = held;
    state.handoff = handed;
    registry.forEachHold(seen::add);
    assertThat(seen).containsExactlyInAnyOrder(held, handed);
    seen.clear();
    state.handoff = held; // the same hold in both places is visited once
    registry.forEachHold(seen::add);
    assertThat(seen).containsExactly(held);
    registry.exit(state);
  }
}
