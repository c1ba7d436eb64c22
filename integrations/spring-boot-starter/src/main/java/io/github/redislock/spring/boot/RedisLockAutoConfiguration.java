package io.github.redislock.spring.boot;

import io.github.redislock.LockStatsListener;
import io.github.redislock.RedisLockFactory;
import java.util.List;
import javax.net.ssl.SSLParameters;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configures a {@link RedisLockFactory} from {@code redis-lock.*} ({@link
 * RedisLockProperties}) and the {@code spring.data.redis.*} connection keys, unless the application
 * defines a {@code RedisLockFactory} of its own or sets {@code redis-lock.enabled=false}. The
 * factory is closed with the application context.
 *
 * <p>The endpoint is, in this order: Redlock over {@code redis-lock.redlock.masters}; {@code
 * redis-lock.uri}; a Sentinel master ({@code spring.data.redis.sentinel.master} and {@code
 * .nodes}); a Cluster ({@code spring.data.redis.cluster.nodes}); one server ({@code
 * spring.data.redis.url}, else {@code host}, {@code port}, {@code username}, {@code password},
 * {@code database}; {@code localhost:6379} by default, as Boot has it). TLS is used for {@code
 * rediss} URIs and when {@code spring.data.redis.ssl.enabled} or {@code .bundle} is set; the SSL
 * bundle's material (and its ciphers and protocols) then applies, host names verified.
 */
@AutoConfiguration(after = SslAutoConfiguration.class)
@ConditionalOnClass(RedisLockFactory.class)
@ConditionalOnProperty(prefix = "redis-lock", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public class RedisLockAutoConfiguration {
  /** Created by Spring when the auto-configuration applies. */
  public RedisLockAutoConfiguration() {}

  /**
   * The factory, built from the properties and then the customizers.
   *
   * @param properties {@code redis-lock.*}
   * @param environment where {@code spring.data.redis.*} is read
   * @param sslBundles the application's SSL bundles, needed only when one is named
   * @param statsListeners told of every counted event (with them, statistics are counted whatever
   *     {@code redis-lock.record-stats} says)
   * @param customizers applied after the properties, in order
   * @return the factory, closed with the context
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public RedisLockFactory redisLockFactory(
      RedisLockProperties properties,
      Environment environment,
      ObjectProvider<SslBundles> sslBundles,
      ObjectProvider<LockStatsListener> statsListeners,
      ObjectProvider<RedisLockFactoryBuilderCustomizer> customizers) {
    RedisEndpoint endpoint = RedisEndpoint.of(properties, environment);
    RedisLockFactory.Builder builder = RedisLockFactory.builder();
    switch (endpoint.kind()) {
      case REDLOCK -> builder.redlock(endpoint.uris().toArray(String[]::new));
      case SENTINEL -> builder.sentinel(endpoint.uris().get(0));
      case CLUSTER -> builder.cluster(endpoint.uris().get(0));
      case STANDALONE -> builder.standalone(endpoint.uris().get(0));
    }
    if (endpoint.sslBundle() != null) {
      SslBundle bundle = sslBundles.getObject().getBundle(endpoint.sslBundle());
      builder.tls(bundle.createSslContext().getSocketFactory(), parameters(bundle.getOptions()));
    }
    builder.leaseTime(properties.getLeaseTime());
    builder.commandTimeout(properties.getCommandTimeout());
    builder.keyPrefix(properties.getKeyPrefix() != null ? properties.getKeyPrefix() : "");
    if (endpoint.kind() == RedisEndpoint.Kind.REDLOCK) {
      builder.redlockNodeTimeout(properties.getRedlock().getNodeTimeout());
    }
    if (properties.getMaxHoldTime() != null) {
      builder.maxHoldTime(properties.getMaxHoldTime());
    }
    List<LockStatsListener> listeners = statsListeners.orderedStream().toList();
    if (!listeners.isEmpty()) {
      builder.recordStats(
          listeners.size() == 1 ? listeners.get(0) : new CompositeLockStatsListener(listeners));
    } else if (properties.isRecordStats()) {
      builder.recordStats();
    }
    if (properties.isDescribeHolders()) {
      builder.describeHolders();
    }
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    return builder.build();
  }

  /** The bundle's protocols and ciphers, host names verified; null (the defaults) for none. */
  private static SSLParameters parameters(SslOptions options) {
    if (options == null || !options.isSpecified()) {
      return null;
    }
    SSLParameters parameters = new SSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    if (options.getEnabledProtocols() != null) {
      parameters.setProtocols(options.getEnabledProtocols());
    }
    if (options.getCiphers() != null) {
      parameters.setCipherSuites(options.getCiphers());
    }
    return parameters;
  }
}
