package io.github.redislock.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServer;
import io.github.redislock.testing.StdErr;
import io.github.redislock.testing.Timing;
import io.github.redislock.testing.VirtualThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The JDK closes the socket of a virtual thread interrupted while it waits on it, so an interrupt
 * during a Redis call fails that call. That failure is the interrupt's, not an outage: an
 * interruptible acquisition throws {@code InterruptedException} at once, without warning that Redis
 * is unavailable, and leaves nothing in Redis. Skipped before Java 21; {@code .ci/run} runs it on a
 * JDK 21+.
 */
@IntegrationTest
class InterruptOnVirtualThreadsTest {
  private static final String NAME = "vt-interrupt";

  @Test
  void anInterruptThatClosesARedisCallEndsTheWaitWithoutReportingAnOutage() throws Exception {
    assumeTrue(VirtualThreads.available(), "virtual threads need Java 21 or later");
    ExecutorService virtual = Executors.newSingleThreadExecutor(VirtualThreads.factory("vt-"));
    try (RedisServer server = RedisServer.start()) {
      RedisLockFactory factory =
          RedisLockFactory.builder()
              .standalone(server.uri())
              .commandTimeout(Duration.ofSeconds(30)) // the call waits for the interrupt
              .build();
      RedisDistributedLock lock = factory.getLock(NAME);
      lock.lock(); // a pooled connection, and the first contact's checks, done
      lock.unlock();
      AtomicReference<Thread> caller = new AtomicReference<>();
      try (StdErr err = StdErr.capture()) {
        server.pause(); // the next call waits for a reply
        Future<Throwable> outcome =
            virtual.submit(
                () -> {
                  caller.set(Thread.currentThread());
                  try {
                    lock.lockInterruptibly();
                    lock.unlock();
                    return null;
                  } catch (Throwable e) {
                    return e;
                  }
                });
        await("the call waits for Redis's reply")
            .atMost(Timing.awaitAtMost())
            .until(() -> caller.get() != null && readsASocket(caller.get()));
        caller.get().interrupt();

        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(err.text()).doesNotContain("Redis is unavailable to acquire lock '" + NAME);
      } finally {
        server.resume();
      }
      await("the attempt the interrupt cut is released in the background")
          .atMost(Timing.awaitAtMost())
          .until(() -> !keyExists(server));
      RedisInvariants.assertCleanAfterTest(server, virtual, List.of(factory), NAME);
    } finally {
      virtual.shutdownNow();
    }
  }

  /**
   * Under Redlock the connections are the factory's, shared by every thread: a virtual thread whose
   * interrupt flag is set when it calls {@code lock()} and {@code unlock()} (both keep the flag,
   * and both must succeed) must not close them, nor make the masters count as down for the other
   * threads: a platform thread's {@code tryLock()} just after is asked on every master.
   */
  @Test
  void underRedlockAnInterruptedVirtualThreadTakesNoMasterDownForTheOthers() throws Exception {
    assumeTrue(VirtualThreads.available(), "virtual threads need Java 21 or later");
    ExecutorService virtual = Executors.newSingleThreadExecutor(VirtualThreads.factory("vt-"));
    List<RedisServer> masters = new ArrayList<>();
    RedisLockFactory factory = null;
    try {
      for (int i = 0; i < 3; i++) {
        masters.add(RedisServer.start());
      }
      factory =
          RedisLockFactory.builder()
              .redlock(masters.stream().map(RedisServer::uri).toArray(String[]::new))
              .redlockNodeTimeout(Duration.ofSeconds(1)) // no timeout on a busy machine
              .build();
      RedisDistributedLock lock = factory.getLock(NAME);
      RedisDistributedLock other = factory.getLock(NAME + ":other");
      lock.lock(); // every master connected
      lock.unlock();
      try (StdErr err = StdErr.capture()) {
        Future<String> outcome =
            virtual.submit(
                () -> {
                  Thread.currentThread().interrupt();
                  lock.lock();
                  boolean keptInLock = Thread.currentThread().isInterrupted();
                  lock.unlock();
                  boolean keptInUnlock = Thread.interrupted();
                  return keptInLock + " " + keptInUnlock;
                });
        assertThat(outcome.get())
            .as("the flag kept by lock() and by unlock()")
            .isEqualTo("true true");

        assertThat(other.tryLock()).as("tryLock() on another name, just after").isTrue();
        // It returns once a majority granted: the last master's reply may come just after.
        for (RedisServer master : masters) {
          await("held on " + master.uri())
              .atMost(Timing.awaitAtMost())
              .untilAsserted(
                  () -> {
                    try (Jedis jedis = master.jedis()) {
                      assertThat(jedis.exists(NAME + ":other")).isTrue();
                    }
                  });
        }
        other.unlock();
        assertThat(err.text())
            .doesNotContain("Redis is unavailable")
            .doesNotContain("failed nodes");
      }
    } finally {
      virtual.shutdownNow();
      if (factory != null) {
        factory.close();
      }
      RedisInvariants.assertNoThreads("redis-lock-");
      for (RedisServer master : masters) {
        try (Jedis jedis = master.jedis()) {
          assertThat(jedis.exists(NAME)).as("key left on %s", master.uri()).isFalse();
          RedisInvariants.assertNoKeysWithoutTtl(jedis);
        }
        master.close();
      }
    }
  }

  private static boolean readsASocket(Thread thread) {
    return Arrays.stream(thread.getStackTrace())
        .anyMatch(f -> f.getClassName().equals("redis.clients.jedis.util.RedisInputStream"));
  }

  private static boolean keyExists(RedisServer server) {
    try (Jedis jedis = server.jedis()) {
      return jedis.exists(NAME);
    }
  }
}
