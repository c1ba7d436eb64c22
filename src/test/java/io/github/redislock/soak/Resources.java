package io.github.redislock.soak;

import io.github.redislock.testing.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * What a process and its Redis server hold at one moment, for leak checks: this JVM's heap, threads
 * and file descriptors, and the server's connections, subscriptions and keys.
 *
 * <p>Only {@code java.base} is used (the test sources are compiled into the library's module, which
 * does not read {@code java.management}): the heap is {@code Runtime.totalMemory() - freeMemory()}
 * after {@link #collectGarbage()}, which on G1 is what {@code MemoryMXBean.getHeapMemoryUsage()}
 * reports as used; the threads are {@code Thread.getAllStackTraces()}.
 *
 * @param heapBytes heap in use (measure after {@link #collectGarbage()})
 * @param threads live threads of this JVM, without the JDK's {@code process reaper} threads (they
 *     belong to the test's own {@code redis-server} restarts and linger 60 s after each)
 * @param libraryThreads the live threads named {@code redis-lock-*}
 * @param fileDescriptors entries of {@code /proc/self/fd} (-1 where there is no procfs), but for
 *     those that cannot be the library's: what the JVM opens on first use and keeps for its life
 *     (class-path jars, the runtime image, the random devices: a class first loaded from a jar
 *     after the baseline is no leak), pipes and Unix domain sockets
 * @param descriptorTargets what those entries point to (sockets, pipes, files), for reports
 * @param connections the server's {@code CLIENT LIST} entries, without the probe's own connection
 * @param libraryConnections the server's connections named {@code redis-lock} (the library's)
 * @param subscribedChannels {@code PUBSUB CHANNELS *}, Sentinel's own channels left out
 * @param subscribedPatterns {@code PUBSUB NUMPAT}
 * @param subscribedShardChannels {@code PUBSUB SHARDCHANNELS *} (0 before Redis 7)
 * @param clientSubscriptions the sum of the {@code sub}, {@code psub} and {@code ssub} fields of
 *     {@code CLIENT LIST}
 * @param keys {@code DBSIZE}
 * @param keysWithoutTtl keys whose {@code PTTL} is -1: they would never go
 * @param longestTtlMillis the greatest {@code PTTL} of any key (0 when there is none)
 * @param clients a short description of (up to 20 of) the server's connections, for reports
 */
public record Resources(
    long heapBytes,
    int threads,
    List<String> libraryThreads,
    int fileDescriptors,
    List<String> descriptorTargets,
    int connections,
    int libraryConnections,
    int subscribedChannels,
    long subscribedPatterns,
    int subscribedShardChannels,
    long clientSubscriptions,
    long keys,
    List<String> keysWithoutTtl,
    long longestTtlMillis,
    List<String> clients) {

  /** The prefix of every thread the library starts. */
  public static final String LIBRARY_THREAD_PREFIX = "redis-lock-";

  private static final String PROCESS_REAPER = "process reaper";
  private static final String LIBRARY_CLIENT_NAME = "redis-lock";
  private static final Path FD_DIR = Path.of("/proc/self/fd");
  private static final int MAX_LISTED = 20;

  /**
   * Measures everything but the heap, which it reads as it is ({@link #collectGarbage()} first for
   * a value worth comparing).
   *
   * @param server the server whose connections, subscriptions and keys count
   * @return the measurement
   */
  public static Resources measure(RedisServer server) {
    long heap = usedHeap();
    int threads = 0;
    List<String> library = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (!t.isAlive() || t.getName().startsWith(PROCESS_REAPER)) {
        continue;
      }
      threads++;
      if (t.getName().startsWith(LIBRARY_THREAD_PREFIX)) {
        library.add(t.getName() + " (" + t.getState() + ")");
      }
    }
    List<String> descriptors = openDescriptors();
    try (Jedis jedis = server.jedis(Duration.ofSeconds(10))) {
      long self = jedis.clientId();
      int connections = 0;
      int libraryConnections = 0;
      long clientSubs = 0;
      List<String> clients = new ArrayList<>();
      for (String line : jedis.clientList().split("\n")) {
        if (line.isBlank() || field(line, "id").equals(Long.toString(self))) {
          continue;
        }
        connections++;
        if (clients.size() < MAX_LISTED) {
          StringBuilder client = new StringBuilder();
          for (String name : List.of("id", "name", "age", "idle", "sub", "psub", "ssub", "cmd")) {
            client.append(name).append('=').append(field(line, name)).append(' ');
          }
          clients.add(client.toString().trim());
        }
        if (field(line, "name").equals(LIBRARY_CLIENT_NAME)) {
          libraryConnections++;
        }
        clientSubs += number(field(line, "sub")) + number(field(line, "psub"));
        clientSubs += number(field(line, "ssub"));
      }
      int channels =
          (int)
              jedis.pubsubChannels("*").stream()
                  .filter(channel -> !channel.startsWith("__sentinel__:"))
                  .count();
      long patterns = jedis.pubsubNumPat();
      int shardChannels = shardChannels(jedis);
      long keys = jedis.dbSize();
      List<String> withoutTtl = new ArrayList<>();
      long longestTtl = 0;
      for (String key : keys(jedis)) {
        long pttl = jedis.pttl(key);
        if (pttl == -1) {
          if (withoutTtl.size() < MAX_LISTED) {
            withoutTtl.add(key + " (" + jedis.type(key) + ")");
          }
        } else {
          longestTtl = Math.max(longestTtl, pttl);
        }
      }
      return new Resources(
          heap,
          threads,
          List.copyOf(library),
          descriptors == null ? -1 : descriptors.size(),
          descriptors == null ? List.of() : descriptors,
          connections,
          libraryConnections,
          channels,
          patterns,
          shardChannels,
          clientSubs,
          keys,
          List.copyOf(withoutTtl),
          longestTtl,
          List.copyOf(clients));
    }
  }

  /**
   * Runs the garbage collector until the heap in use stops shrinking (two readings in a row within
   * 256 KB of each other, or 20 rounds), and returns the last reading.
   *
   * @return the heap in use after collection, in bytes
   */
  public static long collectGarbage() {
    long previous = Long.MAX_VALUE;
    long used = usedHeap();
    for (int round = 0; round < 20; round++) {
      System.gc();
      used = usedHeap();
      if (Math.abs(previous - used) < 256 * 1024) {
        break;
      }
      previous = used;
    }
    return used;
  }

  /** The heap in use now, as {@code MemoryMXBean} counts it. */
  public static long usedHeap() {
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /** The same measurement with another heap reading. */
  public Resources withHeap(long bytes) {
    return new Resources(
        bytes,
        threads,
        libraryThreads,
        fileDescriptors,
        descriptorTargets,
        connections,
        libraryConnections,
        subscribedChannels,
        subscribedPatterns,
        subscribedShardChannels,
        clientSubscriptions,
        keys,
        keysWithoutTtl,
        longestTtlMillis,
        clients);
  }

  /** Every subscription the server reports, by any of its counts. */
  public long subscriptions() {
    return subscribedChannels + subscribedPatterns + subscribedShardChannels + clientSubscriptions;
  }

  /** The targets of this process's descriptors that can leak; {@code null} without procfs. */
  private static List<String> openDescriptors() {
    if (!Files.isDirectory(FD_DIR)) {
      return null;
    }
    List<String> targets = new ArrayList<>();
    try (Stream<Path> entries = Files.list(FD_DIR)) {
      entries.forEach(
          entry -> {
            String target;
            try {
              target = Files.readSymbolicLink(entry).toString();
            } catch (IOException e) {
              return; // the directory stream's own descriptor, closed by now, or one just closed
            }
            if (!heldForLife(target)) {
              targets.add(target);
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + FD_DIR, e);
    }
    targets.remove(FD_DIR.toString().replace("self", Long.toString(ProcessHandle.current().pid())));
    Collections.sort(targets);
    return List.copyOf(targets);
  }

  /**
   * Descriptors that cannot be the library's: files the JVM opens on first use and keeps open
   * (jars, its runtime image, random devices), pipes (the library starts no process and makes no
   * pipe: these are the test's own children, a {@code redis-server}'s stdin or a {@code kill}'s
   * output, closed by the JDK's process reaper when the child ends) and Unix domain sockets (the
   * library speaks TCP or TLS; the JDK keeps a socket pair of its own to close sockets that other
   * threads block on), and the cgroup files the JVM reads its container's limits from (the JVM
   * opens one for a moment now and then: seen in the measurement that follows a collection).
   * Sockets of the library, TCP, all count.
   */
  private static boolean heldForLife(String target) {
    return target.endsWith(".jar")
        || target.endsWith("/lib/modules")
        || target.equals("/dev/random")
        || target.equals("/dev/urandom")
        || target.startsWith("/sys/fs/cgroup/")
        || target.startsWith("pipe:")
        || Descriptors.isUnixSocket(target);
  }

  private static int shardChannels(Jedis jedis) {
    try {
      return jedis.pubsubShardChannels("*").size();
    } catch (JedisDataException e) {
      return 0; // no sharded Pub/Sub before Redis 7
    }
  }

  /** The value of {@code name=} in one {@code CLIENT LIST} line, or "" when absent. */
  private static String field(String line, String name) {
    for (String part : line.trim().split(" ")) {
      if (part.startsWith(name + "=")) {
        return part.substring(name.length() + 1);
      }
    }
    return "";
  }

  private static long number(String value) {
    return value.isEmpty() ? 0 : Long.parseLong(value);
  }

  private static Set<String> keys(Jedis jedis) {
    Set<String> keys = new LinkedHashSet<>();
    ScanParams params = new ScanParams().count(1000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = jedis.scan(cursor, params);
      keys.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
    return keys;
  }
}
