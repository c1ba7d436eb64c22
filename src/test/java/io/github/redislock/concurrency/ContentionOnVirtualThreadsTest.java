package io.github.redislock.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.testing.IntegrationTest;
import io.github.redislock.testing.RedisInvariants;
import io.github.redislock.testing.RedisServerExtension;
import io.github.redislock.testing.Timing;
import io.github.redislock.testing.VirtualThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ten thousand virtual threads contend for ten lock names: mutual exclusion holds (a plain counter
 * per name loses no update, and no two threads are ever inside one name at once), each thread owns
 * what it locked, and no virtual thread is pinned to its carrier in the library's code (JFR's
 * {@code jdk.VirtualThreadPinned}). Skipped before Java 21; {@code .ci/run} runs it on a JDK 21+.
 */
@IntegrationTest
class ContentionOnVirtualThreadsTest {
  private static final int THREADS = 10_000;
  private static final int NAMES = 10;
  @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
  private final List<RedisLockFactory> factories = new ArrayList<>();
  private ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() throws InterruptedException {
    RedisInvariants.closeAfterTest(redis.server(), threads, factories);
  }

  @Test
  void tenThousandVirtualThreadsOnTenNamesExcludeEachOtherUnpinned() throws Exception {
    assumeTrue(VirtualThreads.available(), "virtual threads need Java 21 or later");
    threads.shutdown();
    threads = Executors.newCachedThreadPool(VirtualThreads.factory("contender-"));
    RedisLockFactory factory = RedisLockFactory.builder().standalone(redis.server().uri()).build();
    factories.add(factory);
    // The library's classes are initialized first, as in any program that has locked before: a
    // virtual thread waiting for another's class initialization is pinned, whatever the code.
    RedisDistributedLock warmUp = factory.getLock("vt:warm-up");
    warmUp.lock();
    warmUp.unlock();
    int[] counters = new int[NAMES]; // plain ints: a lost update shows a missing exclusion
    AtomicIntegerArray inside = new AtomicIntegerArray(NAMES);
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger notOwner = new AtomicInteger();
    AtomicInteger notVirtual = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    Path jfr = Files.createTempFile("pinned", ".jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      recording.start();
      List<Future<?>> contenders = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        int name = i % NAMES;
        RedisDistributedLock lock = factory.getLock("vt:" + name);
        contenders.add(
            threads.submit(
                () -> {
                  start.await();
                  if (!VirtualThreads.isVirtual(Thread.currentThread())) {
                    notVirtual.incrementAndGet();
                  }
                  lock.lock();
                  try {
                    if (inside.incrementAndGet(name) != 1) {
                      overlaps.incrementAndGet();
                    }
                    if (!lock.isHeldByCurrentThread()) {
                      notOwner.incrementAndGet();
                    }
                    counters[name]++;
                    inside.decrementAndGet(name);
                  } finally {
                    lock.unlock();
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> contender : contenders) {
        contender.get(Timing.scaled(Duration.ofMinutes(2)).toMillis(), TimeUnit.MILLISECONDS);
      }
      recording.stop();
      recording.dump(jfr);
    }
    assertThat(notVirtual).hasValue(0);
    assertThat(overlaps).hasValue(0);
    assertThat(notOwner).hasValue(0);
    int total = 0;
    for (int count : counters) {
      assertThat(count).isEqualTo(THREADS / NAMES);
      total += count;
    }
    assertThat(total).isEqualTo(THREADS);
    assertThat(pinnedIn(jfr, ContentionOnVirtualThreadsTest::isLibrary))
        .as("pinned virtual threads in library frames")
        .isEmpty();
    // Pins in the libraries below (Jedis setting up a pooled connection) are reported, not failed.
    pinnedIn(jfr, type -> !type.isEmpty() && !isLibrary(type))
        .forEach(pin -> System.out.println("pinned outside the library: " + pin));
    Files.delete(jfr);
  }

  /** The detector itself sees a virtual thread pinned in a class initializer, in this class. */
  @Test
  void theDetectorSeesAVirtualThreadPinnedWhereItIs() throws Exception {
    assumeTrue(VirtualThreads.available(), "virtual threads need Java 21 or later");
    Path jfr = Files.createTempFile("pinned", ".jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      recording.start();
      Thread pinned = VirtualThreads.factory("pinned-").newThread(PinsInItsInitializer::touch);
      pinned.start();
      pinned.join();
      recording.stop();
      recording.dump(jfr);
    }
    assertThat(pinnedIn(jfr, type -> type.contains("ContentionOnVirtualThreadsTest"))).isNotEmpty();
    Files.delete(jfr);
  }

  /** Parks while its class is initialized: a virtual thread cannot unmount there. */
  private static final class PinsInItsInitializer {
    static {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }

    static void touch() {}
  }

  private static boolean isLibrary(String type) {
    String pkg = type.substring(0, Math.max(0, type.lastIndexOf('.')));
    return pkg.equals("io.github.redislock") || pkg.startsWith("io.github.redislock.internal");
  }

  /**
   * The {@code jdk.VirtualThreadPinned} events whose responsible frame, the innermost one that is
   * not the JDK's, is of a type {@code where} accepts: the code that blocked while its virtual
   * thread could not unmount. Each with its reason and stack, to read in a failure.
   */
  private static List<String> pinnedIn(Path jfr, java.util.function.Predicate<String> where)
      throws Exception {
    List<String> pinned = new ArrayList<>();
    for (RecordedEvent event : RecordingFile.readAllEvents(jfr)) {
      // A recording also holds the events enabled by default, such as the library's own
      // (io.github.redislock.Acquisition, with the stack of a wait of 20 ms or more): only pins.
      if (!event.getEventType().getName().equals("jdk.VirtualThreadPinned")
          || event.getStackTrace() == null) {
        continue;
      }
      List<RecordedFrame> frames = event.getStackTrace().getFrames();
      String responsible =
          frames.stream()
              .map(frame -> frame.getMethod().getType().getName())
              .filter(type -> !isJdk(type))
              .findFirst()
              .orElse("");
      if (where.test(responsible)) {
        String reason = event.hasField("pinnedReason") ? event.getString("pinnedReason") : "";
        pinned.add(
            responsible
                + " ("
                + reason
                + ", "
                + event.getDuration()
                + ")\n"
                + frames.stream()
                    .limit(40)
                    .map(
                        f ->
                            "  at "
                                + f.getMethod().getType().getName()
                                + "."
                                + f.getMethod().getName())
                    .collect(java.util.stream.Collectors.joining("\n")));
      }
    }
    return pinned;
  }

  private static boolean isJdk(String type) {
    return type.startsWith("java.")
        || type.startsWith("javax.")
        || type.startsWith("jdk.")
        || type.startsWith("sun.");
  }
}
