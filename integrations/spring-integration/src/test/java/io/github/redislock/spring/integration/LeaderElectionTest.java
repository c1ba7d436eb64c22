package io.github.redislock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisLockExtension;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} on the registry elects one leader among
 * application contexts in separate JVMs, and another once the leader's JVM is killed.
 */
class LeaderElectionTest {
  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  /** Long enough for a JVM to start a Spring context on a busy two-core machine. */
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  private final List<Candidate> candidates = new ArrayList<>();

  @AfterEach
  void killCandidates() throws InterruptedException {
    for (Candidate candidate : candidates) {
      candidate.kill();
    }
  }

  @Test
  void oneLeaderAtATimeAndAnotherWhenTheLeadersJvmIsKilled() throws Exception {
    Candidate a = start("a");
    Candidate b = start("b");

    await("one leader").atMost(PATIENCE).until(() -> a.isLeader() || b.isLeader());
    Candidate leader = a.isLeader() ? a : b;
    Candidate follower = leader == a ? b : a;
    // The follower keeps trying, and keeps finding the lock held: three failed attempts of its
    // own after the leader was elected.
    int failedBefore = follower.failures.get();
    await("the follower tries")
        .atMost(PATIENCE)
        .until(() -> follower.failures.get() >= failedBefore + 3 || follower.grants.get() > 0);
    assertThat(follower.grants.get()).as("grants to the follower: " + follower).isZero();
    assertThat(leader.isLeader()).as("still leader: " + leader).isTrue();
    assertThat(leader.grants.get()).isEqualTo(1);
    assertThat(leader.revocations.get()).isZero();

    leader.kill();
    await("leadership moves to " + follower).atMost(PATIENCE).until(follower::isLeader);
    assertThat(follower.grants.get()).isEqualTo(1);

    // A newcomer does not take it from the new leader.
    Candidate c = start("c");
    await("the newcomer tries")
        .atMost(PATIENCE)
        .until(() -> c.failures.get() >= 3 || c.grants.get() > 0);
    assertThat(c.grants.get()).as("grants to the newcomer: " + c).isZero();
    assertThat(follower.isLeader()).isTrue();
    assertThat(follower.revocations.get()).isZero();
  }

  @Test
  void aLeaderWhoseHoldIsLostIsRevokedAndElectedAgain() {
    AtomicInteger granted = new AtomicInteger();
    AtomicInteger revoked = new AtomicInteger();
    try (RedisLockFactory factory =
            RedisLockFactory.builder()
                .standalone(redis.uri())
                .leaseTime(Duration.ofSeconds(1))
                .build();
        RedisLockFactory operator = redis.factory()) {
      LockRegistryLeaderInitiator initiator =
          new LockRegistryLeaderInitiator(
              new RedisLockFactoryLockRegistry(factory, "leaders"),
              new DefaultCandidate("in-process", LeaderElectionApp.ROLE) {
                @Override
                public void onGranted(Context context) {
                  granted.incrementAndGet();
                }

                @Override
                public void onRevoked(Context context) {
                  revoked.incrementAndGet();
                }
              });
      initiator.setLeaderEventPublisher(new NoLeaderEvents());
      initiator.start();
      try {
        await("leader").atMost(PATIENCE).until(() -> granted.get() == 1);

        // An operator deletes the leader's lock key: the factory finds its hold lost at the next
        // renewal, and the initiator's next heartbeat, re-entering the lock, is told.
        assertThat(operator.forceUnlock("leaders:" + LeaderElectionApp.ROLE)).isTrue();
        await("revoked").atMost(PATIENCE).until(() -> revoked.get() == 1);
        await("leader again").atMost(PATIENCE).until(() -> granted.get() == 2);
        assertThat(initiator.getContext().isLeader()).isTrue();
      } finally {
        int revokedBefore = revoked.get();
        boolean leading = initiator.getContext().isLeader();
        initiator.stop();
        // Its thread releases the lock and revokes as it ends: before the factory closes.
        await("stopped").atMost(PATIENCE).until(() -> !leading || revoked.get() > revokedBefore);
      }
    }
  }

  /** Publishes no event: this test's candidate counts them itself, with no context to publish. */
  private static final class NoLeaderEvents implements LeaderEventPublisher {
    @Override
    public void publishOnGranted(Object source, Context context, String role) {}

    @Override
    public void publishOnRevoked(Object source, Context context, String role) {}

    @Override
    public void publishOnFailedToAcquire(Object source, Context context, String role) {}
  }

  private Candidate start(String id) throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Path log = Files.createTempFile("leader-" + id + "-", ".log");
    List<String> command =
        List.of(
            java,
            "-Xmx128m",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Dleader.redis=" + redis.uri(),
            "-Dleader.id=" + id,
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp",
            System.getProperty("java.class.path"),
            LeaderElectionApp.class.getName());
    Process process =
        new ProcessBuilder(command)
            .redirectError(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    Candidate candidate = new Candidate(id, process, log.toFile());
    candidates.add(candidate);
    return candidate;
  }

  /** A child JVM and what it printed. */
  private static final class Candidate {
    final String id;
    final Process process;
    final File log;
    final List<String> events = new CopyOnWriteArrayList<>();
    final AtomicInteger grants = new AtomicInteger();
    final AtomicInteger revocations = new AtomicInteger();
    final AtomicInteger failures = new AtomicInteger();
    volatile boolean leader;

    Candidate(String id, Process process, File log) {
      this.id = id;
      this.process = process;
      this.log = log;
      Thread reader = new Thread(this::read, "candidate-" + id + "-stdout");
      reader.setDaemon(true);
      reader.start();
    }

    private void read() {
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          events.add(line);
          switch (line) {
            case "LEADER" -> {
              grants.incrementAndGet();
              leader = true;
            }
            case "REVOKED" -> {
              revocations.incrementAndGet();
              leader = false;
            }
            case "FAILED" -> failures.incrementAndGet();
            default -> {}
          }
        }
      } catch (IOException e) {
        if (process.isAlive()) {
          throw new UncheckedIOException(e);
        }
      }
    }

    /** Whether it was granted leadership last, and still runs. */
    boolean isLeader() {
      return leader && process.isAlive();
    }

    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      log.delete();
    }

    @Override
    public String toString() {
      String errors;
      try {
        errors = Files.readString(log.toPath(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        errors = "<" + e + ">";
      }
      int lastLines = Math.max(0, errors.length() - 2000);
      return "candidate "
          + id
          + " (alive: "
          + process.isAlive()
          + ", events: "
          + compact(events)
          + ", stderr: "
          + errors.substring(lastLines)
          + ")";
    }

    private static String compact(List<String> events) {
      StringBuilder sb = new StringBuilder();
      String last = null;
      int repeated = 0;
      for (String event : events) {
        if (event.equals(last)) {
          repeated++;
          continue;
        }
        if (repeated > 0) {
          sb.append(" x").append(repeated + 1);
        }
        sb.append(sb.length() == 0 ? "" : " ").append(event);
        last = event;
        repeated = 0;
      }
      if (repeated > 0) {
        sb.append(" x").append(repeated + 1);
      }
      return sb.toString();
    }
  }
}
