package io.github.redislock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockStatsListener;
import io.github.redislock.RedisLockFactory;
import io.github.redislock.test.RedisLockExtension;
import io.github.redislock.test.ThrowawayRedis;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.IntegrationMessageHeaderAccessor;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.integration.store.MessageGroupStore;
import org.springframework.integration.store.MessageGroupStore.MessageGroupCallback;
import org.springframework.integration.store.SimpleMessageStore;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.integration.util.UUIDConverter;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.MessageHandler;
import redis.clients.jedis.Jedis;

/**
 * Two Spring Integration aggregators share a message store, each with the registry of its own
 * factory as its lock registry: messages sent to both from several threads are released in whole
 * groups, each once, and every group is released holding the group's lock of this library.
 */
class AggregatorTest {
  @RegisterExtension static final RedisLockExtension redis = new RedisLockExtension();

  private static final int GROUPS = 40;
  private static final int GROUP_SIZE = 4;
  private static final String PREFIX = "agg:";

  @Test
  void groupsAreReleasedWholeAndOnceUnderTheRegistrysLocks(ThrowawayRedis server) throws Exception {
    Set<String> lockedByFirst = ConcurrentHashMap.newKeySet();
    Set<String> lockedBySecond = ConcurrentHashMap.newKeySet();
    try (RedisLockFactory firstFactory = factory(server, lockedByFirst);
        RedisLockFactory secondFactory = factory(server, lockedBySecond);
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      RedisLockFactoryLockRegistry first = new RedisLockFactoryLockRegistry(firstFactory);
      RedisLockFactoryLockRegistry second = new RedisLockFactoryLockRegistry(secondFactory);
      Releases releases = new Releases(server, first, second);
      context.registerBean("firstRegistry", RedisLockFactoryLockRegistry.class, () -> first);
      context.registerBean("secondRegistry", RedisLockFactoryLockRegistry.class, () -> second);
      context.registerBean(Releases.class, () -> releases);
      context.register(Aggregators.class);
      context.refresh();
      List<MessageChannel> inputs =
          List.of(
              context.getBean("firstIn", MessageChannel.class),
              context.getBean("secondIn", MessageChannel.class));

      sendFromThreads(inputs);

      Map<String, String> expectedLockNames = new TreeMap<>();
      for (int group = 0; group < GROUPS; group++) {
        expectedLockNames.put("group-" + group, UUIDConverter.getUUID("group-" + group).toString());
      }
      assertThat(releases.released).hasSize(GROUPS);
      assertThat(releases.released)
          .extracting(Release::correlationId)
          .containsExactlyInAnyOrderElementsOf(expectedLockNames.keySet());
      for (Release release : releases.released) {
        assertThat(release.payloads()).as(release.toString()).isEqualTo(payloads(release));
        assertThat(release.heldBy()).as("the group lock's holder: " + release).isNotNull();
        assertThat(release.keyInRedis()).as("the group's lock key: " + release).isTrue();
      }
      // Each aggregator locked groups through its own registry, and only the groups' locks.
      assertThat(lockedByFirst).isNotEmpty().isSubsetOf(expectedLockNames.values());
      assertThat(lockedBySecond).isNotEmpty().isSubsetOf(expectedLockNames.values());
      Set<String> locked = new HashSet<>(lockedByFirst);
      locked.addAll(lockedBySecond);
      assertThat(locked).containsExactlyInAnyOrderElementsOf(expectedLockNames.values());
      try (Jedis jedis = server.jedis()) {
        for (String name : expectedLockNames.values()) {
          assertThat(jedis.exists(PREFIX + name)).as("released: " + name).isFalse();
        }
      }
    }
  }

  private static RedisLockFactory factory(ThrowawayRedis server, Set<String> lockNames) {
    return RedisLockFactory.builder()
        .standalone(server.uri())
        .keyPrefix(PREFIX)
        .recordStats(
            new LockStatsListener() {
              @Override
              public void acquired(String lockName, long waitNanos, boolean handoff) {
                lockNames.add(lockName);
              }
            })
        .build();
  }

  /** Every message of every group, shuffled, each sent by one of 8 threads to either input. */
  private static void sendFromThreads(List<MessageChannel> inputs) throws Exception {
    Random random = new Random(20);
    List<Message<String>> messages = new ArrayList<>();
    for (int group = 0; group < GROUPS; group++) {
      for (int part = 1; part <= GROUP_SIZE; part++) {
        messages.add(
            MessageBuilder.withPayload("group-" + group + "/" + part)
                .setCorrelationId("group-" + group)
                .setSequenceNumber(part)
                .setSequenceSize(GROUP_SIZE)
                .build());
      }
    }
    Collections.shuffle(messages, random);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> sent = new ArrayList<>();
      for (Message<String> message : messages) {
        MessageChannel input = inputs.get(random.nextInt(inputs.size()));
        sent.add(
            pool.submit(
                () -> {
                  start.await();
                  return input.send(message);
                }));
      }
      start.countDown();
      for (Future<Boolean> each : sent) {
        assertThat(each.get(2, TimeUnit.MINUTES)).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<String> payloads(Release release) {
    List<String> expected = new ArrayList<>();
    for (int part = 1; part <= GROUP_SIZE; part++) {
      expected.add(release.correlationId() + "/" + part);
    }
    return expected;
  }

  /** A released group, and what was true of its lock while it was released. */
  record Release(String correlationId, List<String> payloads, String heldBy, boolean keyInRedis) {}

  /** Records each released group, checking its lock as the aggregator sends it. */
  static final class Releases implements MessageHandler {
    final List<Release> released = new CopyOnWriteArrayList<>();
    private final ThrowawayRedis server;
    private final RedisLockFactoryLockRegistry first;
    private final RedisLockFactoryLockRegistry second;

    Releases(
        ThrowawayRedis server,
        RedisLockFactoryLockRegistry first,
        RedisLockFactoryLockRegistry second) {
      this.server = server;
      this.first = first;
      this.second = second;
    }

    @Override
    public void handleMessage(Message<?> message) {
      String correlationId =
          (String) message.getHeaders().get(IntegrationMessageHeaderAccessor.CORRELATION_ID);
      String lockName = UUIDConverter.getUUID(correlationId).toString();
      // The aggregator sends a group's output holding the group's lock (releaseLockBeforeSend
      // is false): in this thread, through one of the registries, as a key in Redis.
      String heldBy =
          first.obtain(lockName).isHeldByCurrentThread()
              ? "first"
              : second.obtain(lockName).isHeldByCurrentThread() ? "second" : null;
      boolean keyInRedis;
      try (Jedis jedis = server.jedis()) {
        keyInRedis = jedis.exists(PREFIX + lockName);
      }
      List<String> payloads = new ArrayList<>();
      for (Object part : (List<?>) message.getPayload()) {
        payloads.add((String) part);
      }
      Collections.sort(payloads);
      released.add(new Release(correlationId, payloads, heldBy, keyInRedis));
    }
  }

  /**
   * A message store shared by two aggregators, as a persistent store is by two instances of an
   * application. Each aggregator registers its callback for expired groups with its store, and
   * Spring logs an error when a store gets two: two instances would each register theirs in their
   * own JVM. This test expires no group; the first callback is kept.
   */
  static final class SharedStore extends SimpleMessageStore {
    private boolean expiryCallbackRegistered;

    @Override
    public synchronized void registerMessageGroupExpiryCallback(MessageGroupCallback callback) {
      if (!expiryCallbackRegistered) {
        expiryCallbackRegistered = true;
        super.registerMessageGroupExpiryCallback(callback);
      }
    }
  }

  /** Two aggregators on one message store, each locking groups through its own registry. */
  @Configuration(proxyBeanMethods = false)
  @EnableIntegration
  static class Aggregators {
    @Bean
    MessageGroupStore groups() {
      return new SharedStore();
    }

    @Bean
    IntegrationFlow firstAggregator(
        @Qualifier("firstRegistry") RedisLockFactoryLockRegistry registry,
        MessageGroupStore groups,
        Releases releases) {
      return IntegrationFlow.from("firstIn")
          .aggregate(a -> a.messageStore(groups).lockRegistry(registry))
          .handle(message -> releases.handleMessage(message))
          .get();
    }

    @Bean
    IntegrationFlow secondAggregator(
        @Qualifier("secondRegistry") RedisLockFactoryLockRegistry registry,
        MessageGroupStore groups,
        Releases releases) {
      return IntegrationFlow.from("secondIn")
          .aggregate(a -> a.messageStore(groups).lockRegistry(registry))
          .handle(message -> releases.handleMessage(message))
          .get();
    }
  }
}
