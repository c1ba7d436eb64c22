package io.github.redislock.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.internal.util.Threads;
import io.github.redislock.internal.util.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The thread transport's bookkeeping, with requests that answer from memory: this checks threads
 * and rounds, not Redis (the Redlock tests do that on real servers).
 */
class FanOutTest {
  private final List<Node> nodes =
      List.of(new Node("a", null, null), new Node("b", null, null), new Node("c", null, null));
  private final ExecutorService executor =
      Executors.newCachedThreadPool(Threads.daemon("redis-lock-fanout-test"));

  /** Replies are awaited by the test itself. */
  private static boolean undecided(Round<String> round) {
    return false;
  }

  private static final long NODE_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long LATE_BOUND_NANOS = TimeUnit.SECONDS.toNanos(30);

  private FanOut fanOut() {
    return new FanOut(nodes, executor, Ticker.SYSTEM, NODE_TIMEOUT_NANOS, LATE_BOUND_NANOS);
  }

  @AfterEach
  void stop() throws InterruptedException {
    executor.shutdownNow();
    assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void everyNodeIsAskedOnceAndItsReplyOrFailureRecorded() {
    AtomicInteger calls = new AtomicInteger();
    Request<String> request =
        new Answering(
            client -> {
              if (calls.incrementAndGet() == 2) {
                throw new IllegalStateException("down");
              }
              return "ok";
            });
    Round<String> round =
        fanOut().send(request, Long.MAX_VALUE, FanOutTest::undecided).await(r -> false);
    assertThat(calls).hasValue(3);
    assertThat(round.count("ok"::equals)).isEqualTo(2);
    assertThat(round.failed()).isEqualTo(1);
  }

  @Test
  void theCallerStopsWaitingOnceDecidedWhileASlowNodeStillWorks() throws InterruptedException {
    CountDownLatch slow = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    Request<String> request =
        new Answering(
            client -> {
              if (calls.incrementAndGet() == 1) {
                await(slow);
                return "late";
              }
              return "ok";
            });
    Round<String> round =
        fanOut()
            .send(request, Long.MAX_VALUE, FanOutTest::undecided)
            .await(r -> r.count("ok"::equals) >= 2);
    assertThat(round.unanswered()).isEqualTo(1);
    CountDownLatch seen = new CountDownLatch(1);
    round.whenEachDone(
        (node, reply) -> {
          if ("late".equals(reply)) {
            seen.countDown();
          }
        });
    slow.countDown();
    assertThat(seen.await(10, TimeUnit.SECONDS)).as("the late reply is seen").isTrue();
  }

  @Test
  void aRequestSentAfterAnotherReachesASlowNodeOnlyOnceItAnsweredTheFirst()
      throws InterruptedException {
    CountDownLatch slow = new CountDownLatch(1);
    List<String> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    AtomicInteger firsts = new AtomicInteger();
    FanOut fanOut = fanOut();
    Round<String> first =
        fanOut
            .send(
                new Answering(
                    client -> {
                      if (firsts.incrementAndGet() == 1) {
                        await(slow);
                        seen.add("first, late");
                      }
                      return "granted";
                    }),
                Long.MAX_VALUE,
                FanOutTest::undecided)
            .await(r -> r.count("granted"::equals) >= 2);
    assertThat(first.unanswered()).isEqualTo(1);
    Round<String> after =
        fanOut
            .sendAfter(
                first,
                new Answering(
                    client -> {
                      seen.add("after");
                      return "released";
                    }),
                Long.MAX_VALUE,
                FanOutTest::undecided)
            .await(r -> r.count("released"::equals) >= 2);
    assertThat(after.unanswered()).as("the slow node is not asked yet").isEqualTo(1);
    slow.countDown();
    after.await(r -> false);
    assertThat(after.count("released"::equals)).isEqualTo(3);
    assertThat(seen.indexOf("first, late")).isLessThan(seen.lastIndexOf("after"));
  }

  @Test
  void aFollowUpSkipsTheNodesWhoseReplyNeedsNone() throws InterruptedException {
    AtomicInteger calls = new AtomicInteger();
    FanOut fanOut = fanOut();
    Round<String> first =
        fanOut
            .send(
                new Answering(client -> calls.incrementAndGet() == 2 ? "busy" : "granted"),
                Long.MAX_VALUE,
                FanOutTest::undecided)
            .await(r -> false);
    AtomicInteger releases = new AtomicInteger();
    fanOut.followUp(
        first,
        "granted"::equals,
        new Answering(client -> String.valueOf(releases.incrementAndGet())),
        Long.MAX_VALUE);
    executor.shutdown(); // the calls are submitted already: let them finish
    assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(releases).hasValue(2);
  }

  @Test
  void aClosedExecutorIsAFailurePerNodeNotAnException() {
    executor.shutdown();
    Round<String> round =
        fanOut().send(new Answering(client -> "ok"), Long.MAX_VALUE, FanOutTest::undecided);
    assertThat(round.unanswered()).isZero();
    assertThat(round.failed()).isEqualTo(3);
  }

  @Test
  void aNodeWhoseCallsHangRunsAtMostEightAtOnceAndIsThenSkippedButNotByAnUndo() {
    AtomicLong now = new AtomicLong();
    FanOut fanOut = new FanOut(nodes, executor, now::get, NODE_TIMEOUT_NANOS, LATE_BOUND_NANOS);
    CountDownLatch hang = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    Request<String> request =
        new Answering(
            client -> {
              most.accumulateAndGet(running.incrementAndGet(), Math::max);
              await(hang);
              running.decrementAndGet();
              return "ok";
            });
    List<Round<String>> rounds = new ArrayList<>();
    for (int i = 0; i < 9; i++) { // per node, 8 calls run and one waits for a thread
      rounds.add(fanOut.send(request, LATE_BOUND_NANOS, FanOutTest::undecided));
    }
    org.awaitility.Awaitility.await().until(() -> running.get() == 3 * 8);
    now.addAndGet(NODE_TIMEOUT_NANOS + 1); // every call in flight has run for the node timeout

    Round<String> skipped = fanOut.send(request, LATE_BOUND_NANOS, FanOutTest::undecided);
    Round<String> undone = fanOut.undo(null, request, LATE_BOUND_NANOS, FanOutTest::undecided);

    assertThat(skipped.failed()).as("every node skipped at once").isEqualTo(3);
    assertThat(skipped.failures().get(0)).hasMessageContaining("not asked");
    assertThat(undone.unanswered()).as("an undo waits for a thread").isEqualTo(3);
    hang.countDown();
    for (Round<String> round : rounds) {
      assertThat(round.await(r -> false).count("ok"::equals)).isEqualTo(3);
    }
    assertThat(undone.await(r -> false).count("ok"::equals)).isEqualTo(3);
    assertThat(most.get()).as("calls at once, over three nodes").isEqualTo(3 * 8);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A request answered by a function instead of a server. */
  private record Answering(java.util.function.Function<UnifiedJedis, String> answer)
      implements Request<String> {
    @Override
    public CommandArguments command() {
      throw new UnsupportedOperationException("not written anywhere");
    }

    @Override
    public String parse(Object reply) {
      return (String) reply;
    }

    @Override
    public String call(UnifiedJedis client) {
      return answer.apply(client);
    }

    @Override
    public RuntimeException failure(JedisException e) {
      return e;
    }
  }
}
