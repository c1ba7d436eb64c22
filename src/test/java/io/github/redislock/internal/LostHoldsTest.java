package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockLostException;
import io.github.redislock.internal.backend.LockKeys;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a lost hold does in the JVM: its holder's local lock is revoked at once, and the former
 * owner's next call on the name learns of the loss once ({@link LockLostException}); any other
 * thread, and the same thread afterwards, is told it does not hold the lock.
 */
class LostHoldsTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, LEASE);
  private final NameRegistry registry = new NameRegistry(new Lifecycle(), false);
  private final LostHolds lost = new LostHolds(registry);
  private final LockName name = new LockName("a", LockKeys.of("a"), -1);

  @AfterEach
  void nothingLeft() {
    assertThat(lost.learn("a")).isNull();
  }

  /** The calling thread owns the local lock of the name and holds {@code token} in it. */
  private NameState holding(String token) {
    NameState state = registry.enter(name);
    state.local.lock();
    Hold hold = hold(token);
    assertThat(lost.take(state, hold)).isTrue();
    assertThat(state.hold).isSameAs(hold);
    return state;
  }

  private Hold hold(String token) {
    return TestHolds.of(backend, ticker, LEASE, name, token, lost::revoke);
  }

  @Test
  void aLostHoldIsRevokedAtOnceAndToldToItsOwnerOnce() {
    NameState state = holding("t");
    Hold hold = state.hold;
    assertThat(hold.markLost("taken by another owner")).isTrue();
    hold.revokeLocally();
    assertThat(state.local.isHeldByCurrentThread()).isFalse();
    assertThat(registry.all()).as("the former owner exited").isEmpty();
    assertThat(lost.lostOrNotHeld("a", true))
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("taken by another owner");
    assertThat(lost.lostOrNotHeld("a", true))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void aQueryDoesNotUseUpTheLossAnUnlockOrAcquisitionLearns() {
    NameState state = holding("t");
    state.hold.markLost("expired");
    state.hold.revokeLocally();
    assertThat(lost.lostOrNotHeld("a", false)).isInstanceOf(LockLostException.class);
    assertThat(lost.lostOrNotHeld("a", false)).isInstanceOf(LockLostException.class);
    assertThat(lost.learn("a")).isEqualTo("expired");
    assertThat(lost.learn("a")).isNull();
  }

  @Test
  void aLossIsToldOnlyToTheThreadThatHeld() throws Exception {
    NameState state = holding("t");
    state.hold.markLost("expired");
    state.hold.revokeLocally();
    IllegalMonitorStateException toOther =
        CompletableFuture.supplyAsync(() -> lost.lostOrNotHeld("a", true)).get();
    assertThat(toOther).isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(lost.learn("a")).isEqualTo("expired");
  }

  @Test
  void aHoldLostBeforeItIsTakenIsNotTaken() {
    NameState state = registry.enter(name);
    state.local.lock();
    Hold hold = hold("t");
    hold.markLost("expired");
    assertThat(lost.take(state, hold)).isFalse();
    assertThat(state.hold).isNull();
    registry.drop(state);
  }

  @Test
  void aLossAfterItsOwnerReleasedRevokesNothingAndRecordsNothing() {
    NameState state = holding("t");
    Hold hold = state.hold;
    state.hold = null;
    assertThat(registry.drop(state)).isTrue();
    hold.markLost("expired");
    hold.revokeLocally();
    assertThat(lost.lostOrNotHeld("a", true))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void anOwnerThatFindsItsHoldLostFirstDropsItItself() {
    NameState state = holding("t");
    Hold hold = state.hold;
    hold.markLost("expired"); // marked, not revoked yet
    assertThat(lost.drop(state, hold))
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("expired");
    assertThat(state.local.isHeldByCurrentThread()).isFalse();
    assertThat(registry.all()).isEmpty();
    hold.revokeLocally(); // the revocation that comes after finds nothing to revoke
    assertThat(lost.learn("a")).isNull();
  }

  // ---- shares ----

  private final LostHolds lostShares = new LostHolds(registry, true);

  /** The calling thread holds a share of the name, {@code token}. */
  private NameState.Share sharing(String token) {
    Thread thread = Thread.currentThread();
    NameState state = registry.enter(name);
    Hold hold =
        TestHolds.of(backend, ticker, LEASE, name, token, h -> lostShares.revokeShare(h, thread));
    NameState.Share share = new NameState.Share(hold);
    state.addShare(thread, share);
    return share;
  }

  @Test
  void aLostShareIsForgottenAtOnceAndToldToItsHolderOnce() {
    NameState.Share share = sharing("r");
    assertThat(share.hold.markLost("share removed")).isTrue();
    share.hold.revokeLocally();
    assertThat(registry.all()).as("the former holder exited").isEmpty();
    assertThat(lostShares.hasLoss("a")).isTrue();
    assertThat(lostShares.lostOrNotHeld("a", true))
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("share removed");
    assertThat(lostShares.hasLoss("a")).isFalse();
    assertThat(lostShares.lostOrNotHeld("a", true))
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("the read lock of 'a'");
    assertThat(lost.learn("a")).as("not a loss of the exclusive hold").isNull();
  }

  @Test
  void aShareGivenBackBeforeItsLossIsNotRevoked() {
    NameState.Share share = sharing("r");
    NameState state = registry.get("a");
    assertThat(state.removeShare(Thread.currentThread(), share)).isTrue();
    registry.exit(state);
    share.hold.markLost("expired");
    share.hold.revokeLocally();
    assertThat(lostShares.hasLoss("a")).isFalse();
    assertThat(registry.all()).isEmpty();
  }

  @Test
  void aHolderThatFindsItsShareLostFirstDropsItItself() {
    NameState.Share share = sharing("r");
    share.hold.markLost("expired"); // marked, not revoked yet
    assertThat(lostShares.dropShare(registry.get("a"), share))
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("expired");
    assertThat(registry.all()).isEmpty();
    share.hold.revokeLocally(); // the revocation that comes after finds nothing to revoke
    assertThat(lostShares.hasLoss("a")).isFalse();
  }
}
