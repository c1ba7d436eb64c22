package io.github.redislock.spring.integration;

import io.github.redislock.RedisLockFactory;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnFailedToAcquireMutexEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * The application that {@link LeaderElectionTest} runs in each child JVM: a Spring context whose
 * {@link LockRegistryLeaderInitiator} competes for leadership through a {@link
 * RedisLockFactoryLockRegistry}, and prints its leader events to standard output, one a line:
 * {@code LEADER}, {@code REVOKED}, {@code FAILED} (an attempt that found the lock held). It runs
 * until its standard input ends, then closes the context.
 *
 * <p>System properties: {@code leader.redis} (the Redis URI), {@code leader.id} (the candidate's
 * id).
 */
public final class LeaderElectionApp {
  /** The role the candidates compete for: the lock key. */
  static final String ROLE = "nightly-job";

  private LeaderElectionApp() {}

  /**
   * Runs the application.
   *
   * @param args not used
   * @throws IOException if standard input fails
   */
  public static void main(String[] args) throws IOException {
    AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(Election.class);
    try {
      print("STARTED");
      InputStream in = System.in;
      while (in.read() != -1) {
        // until the test closes the pipe
      }
    } finally {
      context.close();
    }
  }

  private static void print(String line) {
    synchronized (System.out) {
      System.out.println(line);
      System.out.flush();
    }
  }

  /** The application's beans. */
  @Configuration(proxyBeanMethods = false)
  static class Election {
    @Bean
    RedisLockFactory redisLockFactory(Environment environment) {
      return RedisLockFactory.builder()
          .standalone(environment.getRequiredProperty("leader.redis"))
          .keyPrefix("election:")
          .leaseTime(Duration.ofSeconds(3))
          .build();
    }

    @Bean
    RedisLockFactoryLockRegistry lockRegistry(RedisLockFactory redisLockFactory) {
      return new RedisLockFactoryLockRegistry(redisLockFactory, "leaders");
    }

    @Bean
    LockRegistryLeaderInitiator leaderInitiator(
        RedisLockFactoryLockRegistry lockRegistry, Environment environment) {
      LockRegistryLeaderInitiator initiator =
          new LockRegistryLeaderInitiator(
              lockRegistry,
              new DefaultCandidate(environment.getRequiredProperty("leader.id"), ROLE));
      initiator.setPublishFailedEvents(true);
      return initiator;
    }

    @Bean
    ApplicationListener<AbstractLeaderEvent> leaderEvents() {
      return event -> {
        if (event instanceof OnGrantedEvent) {
          print("LEADER");
        } else if (event instanceof OnRevokedEvent) {
          print("REVOKED");
        } else if (event instanceof OnFailedToAcquireMutexEvent) {
          print("FAILED");
        }
      };
    }
  }
}
