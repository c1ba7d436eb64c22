package io.github.redislock.spring.boot;

import io.github.redislock.LockActivity;
import io.github.redislock.RedisLockFactory;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Reports whether a {@link RedisLockFactory}'s Redis answers: UP when the factory can {@linkplain
 * RedisLockFactory#inspect inspect} the lock {@value #PROBE_NAME} (a read that writes nothing, on
 * the node of that name's slot, or a majority of the Redlock masters), DOWN with the error
 * otherwise. Its details are what the factory is doing in this JVM: the holds it renews and the
 * lock names in use.
 *
 * <p>The probe name is reserved for the health check; locking it does no harm, the check reads it
 * whoever holds it.
 */
public class RedisLockHealthIndicator extends AbstractHealthIndicator {
  /** The lock the health check inspects: {@value}. */
  public static final String PROBE_NAME = "redis-lock:health-probe";

  private final RedisLockFactory factory;

  /**
   * A health indicator of {@code factory}'s Redis.
   *
   * @param factory the factory whose Redis is checked
   */
  public RedisLockHealthIndicator(RedisLockFactory factory) {
    super("Redis lock health check failed");
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    factory.inspect(PROBE_NAME); // throws RedisLockException when Redis does not answer
    LockActivity activity = factory.activity();
    builder
        .up()
        .withDetail("renewingHolds", activity.renewingHoldCount())
        .withDetail("namesInUse", activity.namesInUseCount());
  }
}
