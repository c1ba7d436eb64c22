package io.github.redislock.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The leak check of every integration test: {@link IntegrationTest} registers it, so a test class
 * does not wire it itself. It runs after the class's own {@code @AfterEach} (or {@code @AfterAll})
 * methods, once the test has closed its factories, and fails the test (or the class) naming what
 * leaked.
 *
 * <p>After each test:
 *
 * <ul>
 *   <li>no live thread of this JVM is named {@value #LIBRARY_THREADS}{@code *} (awaited up to
 *       {@link Timing#CLEAN_UP}: threads end asynchronously after a factory closes);
 *   <li>on every server started since the class began ({@link LiveServers}) and still running: no
 *       key without a TTL on a master (a lock library must never leave a key that lives forever),
 *       no Pub/Sub subscription (channels, patterns, shard channels; on a Sentinel, no subscribed
 *       client), awaited as long; then each master is flushed, so the next test starts empty;
 *   <li>every such server that stopped during the test's clean-up (a server per test, closed in
 *       {@code @AfterEach}) had no key without a TTL and no subscription just before it stopped:
 *       the check takes a last look at a server as it closes, unless it closes in the test's own
 *       body (where a test may stop a server under a live factory on purpose).
 * </ul>
 *
 * <p>After the class: no {@value #LIBRARY_THREADS}{@code *} thread and no proxy thread ({@link
 * TcpProxy}, {@link RespProxy}) is left, servers that close in {@code @AfterAll} had no key without
 * a TTL and no subscription, and no server the class started is still running (such a server is
 * reported and closed).
 *
 * <p>Clients and proxies through which a test's factories reach Redis must stay open until the
 * check has looked (closing them ends their connections, and any subscription left on them): a test
 * hands them to {@link #closeAfterCheck}.
 *
 * <p>A class whose tests keep threads, keys or subscriptions from one test to the next on purpose
 * says so with {@link IntegrationTest#sharedAcrossTests()} and {@link IntegrationTest#because()}:
 * those are then checked after the class only (as its servers stop, and for threads at its end).
 *
 * <p>The servers are those of the whole JVM: JUnit must run one test at a time (as this build
 * does); the check refuses parallel execution. A class run inside a test (by a nested launcher)
 * gets a check of its own and leaves the outer one alone.
 */
public final class LeakCheck
    implements BeforeAllCallback,
        BeforeEachCallback,
        AfterTestExecutionCallback,
        AfterEachCallback,
        AfterAllCallback {

  /** What a test class may keep from one test to the next, see {@link IntegrationTest}. */
  public enum Shared {
    /**
     * The library's threads: factories or engines built once for the class. The thread check runs
     * after the class only.
     */
    THREADS,
    /**
     * Keys: the servers are neither checked for keys nor flushed after each test; keys without a
     * TTL are looked for as each server stops.
     */
    KEYS,
    /** Pub/Sub subscriptions: looked for as each server stops, not after each test. */
    SUBSCRIPTIONS
  }

  /** The prefix of the names of the library's threads. */
  public static final String LIBRARY_THREADS = "redis-lock-";

  private static final List<String> FIXTURE_THREADS =
      List.of(TcpProxy.THREAD_NAME_PREFIX, RespProxy.THREAD_NAME_PREFIX);
  private static final String PARALLEL = "junit.jupiter.execution.parallel.enabled";

  /** The classes being checked, innermost first (a class run by a nested launcher on top). */
  private static final Deque<Run> RUNS = new ArrayDeque<>();

  static {
    LiveServers.onStopping(LeakCheck::lastLook);
  }

  /** Creates the extension (JUnit does, for {@link IntegrationTest}). */
  public LeakCheck() {}

  /** One top-level test class being checked. */
  private static final class Run {
    final Class<?> testClass;
    final Set<LiveServers.Endpoint> before;
    final Set<Shared> shared;
    final List<String> found = Collections.synchronizedList(new ArrayList<>());
    final List<AutoCloseable> closeAfterTest = Collections.synchronizedList(new ArrayList<>());
    final List<AutoCloseable> closeAfterClass = Collections.synchronizedList(new ArrayList<>());

    /** From {@code beforeEach} to the end of the test method: servers closed then are not seen. */
    volatile boolean inTestBody;

    /** From {@code beforeEach} to the end of {@code afterEach}. */
    volatile boolean inTest;

    Run(Class<?> testClass, Set<LiveServers.Endpoint> before, Set<Shared> shared) {
      this.testClass = testClass;
      this.before = before;
      this.shared = shared;
    }

    List<LiveServers.Endpoint> ownServers() {
      List<LiveServers.Endpoint> own = new ArrayList<>(LiveServers.snapshot());
      own.removeAll(before);
      return own;
    }

    /** Closes what {@link #closeAfterCheck} took, newest first; failures go to {@code found}. */
    static void closeAll(List<AutoCloseable> resources, List<String> found) {
      List<AutoCloseable> copy;
      synchronized (resources) {
        copy = new ArrayList<>(resources);
        resources.clear();
      }
      Collections.reverse(copy);
      for (AutoCloseable resource : copy) {
        try {
          resource.close();
        } catch (Exception e) {
          found.add("closing " + resource + " after the check failed: " + e);
        }
      }
    }

    List<String> drain() {
      synchronized (found) {
        List<String> copy = new ArrayList<>(found);
        found.clear();
        return copy;
      }
    }
  }

  /**
   * Closes {@code resource} after the leak check of the current test (or, when called outside a
   * test, after the check of the class), newest first: for the clients and proxies through which a
   * test's factories reach Redis. Closed in {@code @AfterEach}, before the check, they would end
   * their connections, and with them any subscription the library left on them, which the check
   * would then not see.
   *
   * @param resource what to close
   * @param <T> its type
   * @return {@code resource}
   * @throws IllegalStateException outside an {@link IntegrationTest}
   */
  public static <T extends AutoCloseable> T closeAfterCheck(T resource) {
    Run run = current();
    if (run == null) {
      throw new IllegalStateException("no LeakCheck runs: not in an @IntegrationTest");
    }
    (run.inTest ? run.closeAfterTest : run.closeAfterClass).add(resource);
    return resource;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (!isTopLevel(context)) {
      return;
    }
    Class<?> testClass = context.getRequiredTestClass();
    if (context.getConfigurationParameter(PARALLEL).map(Boolean::parseBoolean).orElse(false)) {
      throw new ExtensionConfigurationException(
          "LeakCheck inspects every server and thread of the JVM: the tests of "
              + testClass.getName()
              + " must run one at a time ("
              + PARALLEL
              + " is true)");
    }
    Set<Shared> shared = EnumSet.noneOf(Shared.class);
    var settings = AnnotationSupport.findAnnotation(testClass, IntegrationTest.class);
    if (settings.isPresent()) {
      shared.addAll(List.of(settings.get().sharedAcrossTests()));
      if (!shared.isEmpty() && settings.get().because().isBlank()) {
        throw new ExtensionConfigurationException(
            testClass.getName()
                + " shares "
                + shared
                + " across tests without saying why: add @IntegrationTest(because = \"...\")");
      }
    }
    synchronized (RUNS) {
      RUNS.push(new Run(testClass, new HashSet<>(LiveServers.snapshot()), shared));
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Run run = current();
    if (run != null) {
      run.inTestBody = true;
      run.inTest = true;
    }
  }

  @Override
  public void afterTestExecution(ExtensionContext context) {
    Run run = current();
    if (run != null) {
      run.inTestBody = false;
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Run run = current();
    if (run == null) {
      return;
    }
    run.inTestBody = false; // also when a failed @BeforeEach skipped afterTestExecution
    List<String> found = run.drain();
    try {
      if (!run.shared.contains(Shared.THREADS)) {
        checkThreads(found, LIBRARY_THREADS);
      }
      boolean keys = !run.shared.contains(Shared.KEYS);
      boolean subscriptions = !run.shared.contains(Shared.SUBSCRIPTIONS);
      for (LiveServers.Endpoint server : run.ownServers()) {
        found.addAll(inspect(server, keys, subscriptions, keys));
      }
    } finally {
      run.inTest = false;
      Run.closeAll(run.closeAfterTest, found);
    }
    report(found, "after " + run.testClass.getName() + " > " + context.getDisplayName());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (!isTopLevel(context)) {
      return;
    }
    Run run;
    synchronized (RUNS) {
      run =
          RUNS.stream()
              .filter(r -> r.testClass == context.getRequiredTestClass())
              .findFirst()
              .orElse(null);
      if (run == null) {
        return; // beforeAll refused the class
      }
      while (RUNS.peek() != run) {
        RUNS.pop();
      }
      RUNS.pop();
    }
    List<String> found = run.drain();
    try {
      checkThreads(found, LIBRARY_THREADS);
      for (LiveServers.Endpoint server : run.ownServers()) {
        found.add(server + ": left running by the class (closed now)");
        try {
          found.addAll(inspect(server, true, true, false));
        } finally {
          server.close();
        }
      }
    } finally {
      Run.closeAll(run.closeAfterClass, found);
    }
    FIXTURE_THREADS.forEach(prefix -> checkThreads(found, prefix));
    report(found, "after the class " + run.testClass.getName());
  }

  /** The last look at a server about to stop, unless a test's own body stops it. */
  private static void lastLook(LiveServers.Endpoint server) {
    Run run = current();
    if (run == null || run.inTestBody || run.before.contains(server)) {
      return;
    }
    for (String leak : inspect(server, true, true, false)) {
      run.found.add("just before it stopped, " + leak);
    }
  }

  private static Run current() {
    synchronized (RUNS) {
      return RUNS.peek();
    }
  }

  /** Whether the context is a class that JUnit runs at the top (not a {@code @Nested} one). */
  private static boolean isTopLevel(ExtensionContext context) {
    return context.getParent().map(parent -> parent.getTestClass().isEmpty()).orElse(true);
  }

  /**
   * What a server has left: keys without a TTL (on a master), subscriptions; then flushes it (a
   * master) if asked. Never throws: what it cannot inspect it reports.
   */
  private static List<String> inspect(
      LiveServers.Endpoint server, boolean keys, boolean subscriptions, boolean flush) {
    List<String> found = new ArrayList<>();
    if (!server.isRunning()) {
      return found; // killed by the test: nothing to inspect
    }
    try (Jedis j = server.connectForCheck()) {
      String role = role(j);
      if (role.equals("sentinel")) {
        if (subscriptions) {
          check(found, server, () -> RedisInvariants.assertNoSubscribedClients(j));
        }
        return found;
      }
      boolean master = role.equals("master");
      if (keys && master) {
        check(found, server, () -> RedisInvariants.assertNoKeysWithoutTtl(j));
      }
      if (subscriptions) {
        check(found, server, () -> RedisInvariants.assertNoSubscriptions(j));
      }
      if (flush && master) {
        j.flushAll();
      }
    } catch (JedisException e) {
      found.add(server + ": cannot be inspected: " + e);
    }
    return found;
  }

  /** The server's role ({@code ROLE}'s first element): master, slave or sentinel. */
  private static String role(Jedis j) {
    Object first = ((List<?>) j.sendCommand(Protocol.Command.ROLE)).get(0);
    return first instanceof byte[] bytes
        ? new String(bytes, StandardCharsets.UTF_8)
        : String.valueOf(first);
  }

  private static void check(List<String> found, LiveServers.Endpoint server, Runnable assertion) {
    try {
      assertion.run();
    } catch (AssertionError | RuntimeException e) {
      found.add(server + ": " + e.getMessage());
    }
  }

  private static void checkThreads(List<String> found, String prefix) {
    try {
      RedisInvariants.assertNoThreads(prefix);
    } catch (AssertionError | RuntimeException e) {
      found.add("threads named " + prefix + "* left: " + e.getMessage());
    }
  }

  private static void report(List<String> found, String when) {
    if (!found.isEmpty()) {
      throw new AssertionError(
          "leak check "
              + when
              + ": "
              + found.size()
              + " leak(s)\n  - "
              + String.join("\n  - ", found));
    }
  }
}
