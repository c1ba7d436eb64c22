package io.github.redislock.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class that starts {@code redis-server} processes, child JVMs, proxies or containers
 * (through {@link RedisServer}, {@link RedisCluster}, {@link RedisSentinelGroup}, {@link
 * JvmProcess}, {@link TcpProxy}, {@link RedisServerExtension}, a contract {@code Deployment}, ...).
 * Such a class is tagged {@value #TAG}: {@code mvn test} (Surefire) leaves it out unless it is
 * named with {@code -Dtest=ClassName}, and {@code mvn verify} (Failsafe) runs it. Subclasses
 * inherit the tag, and so do {@code @Nested} classes. {@link IntegrationTagTest} fails for a test
 * class that uses one of those fixtures without it.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(IntegrationTest.TAG)
public @interface IntegrationTest {
  /** The JUnit tag that Surefire excludes and Failsafe selects (see pom.xml). */
  String TAG = "integration";
}
