package io.github.redislock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.Fault;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.ProxiedDeployment;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A script whose reply is lost is sent once by the library, which judges what it may have done; the
 * client's own retry (a cluster client retries a command whose connection failed) would send it
 * again and take the second answer for the first. A release whose signals travel with it ran, its
 * reply lost: the key is gone, and the retry must not call the hold lost. (Sentinel reaches its
 * master as a standalone client reaches its server: the standalone case covers it.)
 */
@IntegrationTest
class LostScriptRepliesTest {
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

  static Stream<Arguments> deployments() {
    return Stream.of(
        Arguments.of(named("standalone", ProxiedDeployment::standalone)),
        Arguments.of(named("cluster", ProxiedDeployment::cluster)));
  }

  private static Named<Supplier<ProxiedDeployment>> named(
      String name, Supplier<ProxiedDeployment> deployment) {
    return Named.of(name, deployment);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void aReleaseWithSignalsWhoseReplyWasLostReleasesWithoutCallingTheHoldLost(
      Supplier<ProxiedDeployment> deployments) {
    try (ProxiedDeployment deployment = deployments.get();
        RedisLockFactory factory = deployment.builder(COMMAND_TIMEOUT).build()) {
      RedisDistributedLock lock = factory.getLock("lost-reply:signal-release");
      Condition condition = lock.newCondition();
      signalAndUnlock(lock, condition); // the script loaded: the faulty call runs it
      lock.lock();
      condition.signal(); // nobody awaits: the signal travels with the release
      Fault fault = Fault.onScript("condition.lua").ofClients("redis-lock").loseReply();
      deployment.proxies().forEach(p -> p.inject(fault));

      assertThatCode(lock::unlock).as(fault.hits().toString()).doesNotThrowAnyException();

      assertThat(fault.hits()).hasSize(1);
      assertThat(lock.isLocked()).isFalse();
      assertThat(lock.tryLock()).isTrue();
      lock.unlock();
    }
  }

  private static void signalAndUnlock(RedisDistributedLock lock, Condition condition) {
    lock.lock();
    condition.signal();
    lock.unlock();
  }
}
