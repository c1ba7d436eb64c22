package io.github.redislock.shedlock.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.redislock.test.RedisLockExtension;
import io.github.redislock.test.ThrowawayRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

/** Two nodes of the example on one Redis: the job runs on both, and never on both at once. */
class ScheduledReportTest {
  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  @Test
  void theJobRunsOnEachNodeButNeverOnTwoAtOnce(ThrowawayRedis server) {
    Runs runs = new Runs();
    try (ConfigurableApplicationContext node1 =
            ScheduledReport.startNode("node-1", server.uri(), runs);
        ConfigurableApplicationContext node2 =
            ScheduledReport.startNode("node-2", server.uri(), runs)) {
      await("runs on each node")
          .atMost(Duration.ofSeconds(60))
          .until(() -> runs.of("node-1") >= 5 && runs.of("node-2") >= 5);
      assertThat(node1.isActive() && node2.isActive()).as("both nodes ran all along").isTrue();
    }

    assertThat(runs.mostAtOnce()).as("%s", runs).isEqualTo(1);
  }
}
