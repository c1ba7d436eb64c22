package io.github.redislock.spring.boot.app;

import io.github.redislock.RedisLockFactory;
import java.util.concurrent.locks.Lock;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** A Boot application as a user writes one: auto-configuration, and a service using the lock. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class LockingApplication {
  /** The application's service. */
  public static class NightlyJob {
    private final RedisLockFactory locks;

    NightlyJob(RedisLockFactory locks) {
      this.locks = locks;
    }

    /**
     * Runs the job unless another instance is running it.
     *
     * @return whether it ran
     */
    public boolean runOnce() {
      Lock lock = locks.getLock("nightly-job");
      if (!lock.tryLock()) {
        return false;
      }
      try {
        return true;
      } finally {
        lock.unlock();
      }
    }
  }

  @Bean
  NightlyJob nightlyJob(RedisLockFactory locks) {
    return new NightlyJob(locks);
  }
}
