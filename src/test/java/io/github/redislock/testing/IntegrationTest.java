package io.github.redislock.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that starts {@code redis-server} processes, child JVMs, proxies or containers
 * (through {@link RedisServer}, {@link RedisCluster}, {@link RedisSentinelGroup}, {@link
 * JvmProcess}, {@link TcpProxy}, {@link RedisServerExtension}, a contract {@code Deployment}, ...).
 * Such a class is tagged {@value #TAG}: {@code mvn test} (Surefire) leaves it out unless it is
 * named with {@code -Dtest=ClassName}, and {@code mvn verify} (Failsafe) runs it. Subclasses
 * inherit the tag, and so do {@code @Nested} classes. {@link IntegrationTagTest} fails for a test
 * class that uses one of those fixtures without it.
 *
 * <p>It also registers the {@link LeakCheck}: after each test no {@code redis-lock-} thread, no key
 * without a TTL and no subscription may be left on the servers the fixtures started. A class whose
 * tests share one of those on purpose names it in {@link #sharedAcrossTests()}, and says why in
 * {@link #because()}:
 *
 * <pre>{@code
 * @IntegrationTest(
 *     sharedAcrossTests = LeakCheck.Shared.THREADS,
 *     because = "one factory for the whole class, closed in @AfterAll")
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Tag(IntegrationTest.TAG)
@ExtendWith(LeakCheck.class)
public @interface IntegrationTest {
  /** The JUnit tag that Surefire excludes and Failsafe selects (see pom.xml). */
  String TAG = "integration";

  /**
   * What the tests of the class keep from one test to the next on purpose: the {@link LeakCheck}
   * looks for those after the whole class only, not after each test. Empty by default.
   *
   * @return the things shared across tests
   */
  LeakCheck.Shared[] sharedAcrossTests() default {};

  /**
   * Why the tests share what {@link #sharedAcrossTests()} names; required with it (the leak check
   * fails the class otherwise).
   *
   * @return the reason
   */
  String because() default "";
}
