package io.github.redislock.shedlock.example;

import io.github.redislock.RedisLockFactory;
import io.github.redislock.shedlock.RedisLockProvider;
import java.util.Map;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.DependsOn;
import org.springframework.core.env.MapPropertySource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The example: a Spring application whose {@code @Scheduled} report job runs on every node's
 * schedule, and, through ShedLock's {@code @SchedulerLock} on redis-lock, on one node at a time.
 * Each node is an application context of its own, with a factory of its own on the same Redis.
 */
@Configuration
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT1M")
public class ScheduledReport {

  /**
   * The node's factory, closed with its context.
   *
   * @param redisUri where Redis is
   * @return the factory
   */
  @Bean
  RedisLockFactory redisLockFactory(@Value("${redis.uri}") String redisUri) {
    return RedisLockFactory.builder().standalone(redisUri).keyPrefix("example:").build();
  }

  /**
   * The provider {@code @SchedulerLock} takes its locks from.
   *
   * @param redisLockFactory the node's factory
   * @return the provider
   */
  @Bean
  LockProvider lockProvider(RedisLockFactory redisLockFactory) {
    return new RedisLockProvider(redisLockFactory, "jobs:");
  }

  /**
   * The scheduler that runs the {@code @Scheduled} jobs (Spring takes the bean named {@code
   * taskScheduler}). It depends on the factory, so the context stops it first when it closes: a
   * report still being written ends, and unlocks, before the factory closes.
   *
   * @return the scheduler
   */
  @Bean
  @DependsOn("redisLockFactory")
  ThreadPoolTaskScheduler taskScheduler() {
    ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
    scheduler.setWaitForTasksToCompleteOnShutdown(true);
    return scheduler;
  }

  @Bean
  ReportJob reportJob(Runs runs, @Value("${node}") String node) {
    return new ReportJob(runs, node);
  }

  /**
   * Starts a node.
   *
   * @param node the node's name, counted by {@code runs}
   * @param redisUri where Redis is
   * @param runs what counts the runs of every node
   * @return the node's running context; closing it stops the node
   */
  public static ConfigurableApplicationContext startNode(String node, String redisUri, Runs runs) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("node", Map.of("node", node, "redis.uri", redisUri)));
    context.registerBean(Runs.class, () -> runs);
    context.register(ScheduledReport.class);
    context.refresh();
    return context;
  }

  /** The job: every 10 ms on each node's schedule, and never on two nodes at once. */
  public static class ReportJob {
    private final Runs runs;
    private final String node;

    ReportJob(Runs runs, String node) {
      this.runs = runs;
      this.node = node;
    }

    /**
     * Writes the report. Held at most a minute (if the node dies mid-report, another node may run
     * it a minute later), and at least 50 ms: a node that finishes sooner keeps the others off
     * until then.
     */
    @Scheduled(fixedDelay = 10)
    @SchedulerLock(name = "report", lockAtMostFor = "PT1M", lockAtLeastFor = "PT0.05S")
    public void writeReport() {
      runs.started(node);
      try {
        Thread.sleep(5); // the report's work: long enough for an overlap to show
      } catch (InterruptedException e) { // the node is stopping
        Thread.currentThread().interrupt();
      } finally {
        runs.ended();
      }
    }
  }
}
