package io.github.redislock.micrometer;

import io.github.redislock.LockActivity;
import io.github.redislock.LockStatsListener;
import io.github.redislock.RedisLockFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The statistics and activity of a {@link RedisLockFactory} as Micrometer meters: a {@link
 * MeterBinder} fed by the factory's {@link LockStatsListener} (see {@link
 * RedisLockFactory.Builder#recordStats(LockStatsListener)}), as each event happens, with gauges
 * read from {@link RedisLockFactory#activity()}.
 *
 * <pre>{@code
 * RedisLockMetrics metrics = RedisLockMetrics.builder().build();
 * RedisLockFactory factory =
 *     RedisLockFactory.builder().standalone(uri).recordStats(metrics.listener()).build();
 * metrics.activityOf(factory);     // the gauges; optional
 * metrics.bindTo(registry);        // Spring Boot does this for every MeterBinder bean
 * }</pre>
 *
 * <p>The meters (timers in the registry's base unit, seconds for most):
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>Name</th><th>Type</th><th>Tags</th><th>What</th></tr>
 * <tr><td>{@code redis.lock.acquisitions}</td><td>counter</td><td>{@code result}: {@code acquired},
 *     {@code timeout}, {@code failed}</td><td>lock calls by a thread that did not hold the lock
 *     (reentrant ones are not counted): holding it, a timed {@code tryLock} whose time elapsed, or
 *     without it otherwise (busy {@code tryLock()}, interrupt, Redis error, closed factory)</td></tr>
 * <tr><td>{@code redis.lock.wait}</td><td>timer</td><td>{@code result}, as above</td><td>how long
 *     each of those calls waited (acquired) or tried (not)</td></tr>
 * <tr><td>{@code redis.lock.handoffs}</td><td>counter</td><td></td><td>acquisitions whose hold came
 *     from another thread of this JVM without a release in Redis</td></tr>
 * <tr><td>{@code redis.lock.hold}</td><td>timer</td><td></td><td>how long each hold was held in
 *     Redis, from its acquisition to its release (a hold handed between threads of this JVM is one
 *     hold: it is released once)</td></tr>
 * <tr><td>{@code redis.lock.holds.lost}</td><td>counter</td><td></td><td>holds lost before their
 *     release (key gone or taken over at renewal, lease run out, factory closed)</td></tr>
 * <tr><td>{@code redis.lock.renewals}</td><td>counter</td><td></td><td>leases renewed</td></tr>
 * <tr><td>{@code redis.lock.redis.errors}</td><td>counter</td><td></td><td>Redis calls of
 *     acquisitions, renewals and releases that failed: failed renewals are counted here</td></tr>
 * <tr><td>{@code redis.lock.holds.renewing}</td><td>gauge</td><td></td><td>{@link
 *     LockActivity#renewingHoldCount()}</td></tr>
 * <tr><td>{@code redis.lock.names.in.use}</td><td>gauge</td><td></td><td>{@link
 *     LockActivity#namesInUseCount()}</td></tr>
 * <tr><td>{@code redis.lock.channels.subscribed}</td><td>gauge</td><td></td><td>{@link
 *     LockActivity#subscribedChannelCount()}</td></tr>
 * <tr><td>{@code redis.lock.threads}</td><td>gauge</td><td></td><td>the factory's background
 *     threads, all nodes together ({@link LockActivity#threadsPerNode()})</td></tr>
 * <tr><td>{@code redis.lock.turns.given}</td><td>function counter</td><td></td><td>{@link
 *     LockActivity#turnsGivenCount()}</td></tr>
 * <tr><td>{@code redis.lock.wakeups.spurious}</td><td>function counter</td><td></td><td>{@link
 *     LockActivity#spuriousWakeUpCount()}</td></tr>
 * </table>
 *
 * <p>The first seven are pushed by the listener; the factory's events before {@link
 * #bindTo(MeterRegistry)} are not in them ({@link RedisLockFactory#stats()} has every count since
 * the factory was built). The last six need {@link #activityOf(RedisLockFactory)}; the registry
 * holds the factory only weakly, so a factory left unreferenced may still be collected (its gauges
 * then read {@code NaN}).
 *
 * <p><b>Tags.</b> Every meter has the {@linkplain Builder#tags(Iterable) common tags} given to the
 * builder (to tell several factories apart, e.g. {@code factory=orders}). The pushed meters have no
 * lock name by default: lock names may be made of data (an order id, a user), and a tag per name
 * would make a time series per name. {@link Builder#perNameTags(int) perNameTags(n)} gives them a
 * {@code name} tag: the lock's name for the first {@code n} distinct names the binder sees, {@value
 * #OTHER_NAMES} for every later name, so that at most {@code n + 1} values of the tag exist.
 *
 * <p><b>Closing.</b> A factory keeps its listener for its life. {@link #close()} removes every
 * meter this binder registered from the registries it was bound to, forgets them, and makes the
 * listener do nothing from then on: what the factory reports afterwards goes nowhere. Spring Boot
 * closes a {@code MeterBinder} bean that is {@link AutoCloseable} when its context closes.
 *
 * <p>Instances are thread-safe. One binder serves one factory (its listener may be given to one
 * factory only; several factories need several binders, with distinct common tags).
 */
public final class RedisLockMetrics implements MeterBinder, AutoCloseable {

  /**
   * The {@code name} tag's value for the lock names beyond the bound of {@link
   * Builder#perNameTags(int)}: {@value}.
   */
  public static final String OTHER_NAMES = "other";

  private static final String NAME = "name";
  private static final String RESULT = "result";
  private static final String PREFIX = "redis-lock: ";

  private final Tags commonTags;
  private final NameTags nameTags; // null: no name tag
  private final Listener listener = new Listener();
  private final CopyOnWriteArrayList<Bound> bound = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();
  private RedisLockFactory factory; // guarded by lock
  private boolean closed; // guarded by lock

  private RedisLockMetrics(Builder builder) {
    this.commonTags = builder.tags;
    this.nameTags = builder.maxNames > 0 ? new NameTags(builder.maxNames) : null;
  }

  /**
   * Returns a builder of a binder: no per-name tags, no common tags.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the listener to give to {@link RedisLockFactory.Builder#recordStats(LockStatsListener)}
   * of the factory to measure: it feeds this binder's counters and timers in every registry it is
   * bound to. Always the same object.
   *
   * @return the listener
   */
  public LockStatsListener listener() {
    return listener;
  }

  /**
   * Adds the gauges of {@code factory}'s {@link RedisLockFactory#activity()} to the meters: in the
   * registries this binder is bound to already, and those it is bound to later. Give it the factory
   * whose builder got {@link #listener()}.
   *
   * @param factory the factory
   * @return this binder
   * @throws NullPointerException if {@code factory} is null
   * @throws IllegalStateException if a factory was given already, or this binder is closed
   */
  public RedisLockMetrics activityOf(RedisLockFactory factory) {
    Objects.requireNonNull(factory, "factory");
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("closed");
      }
      if (this.factory != null) {
        throw new IllegalStateException("a factory was given already");
      }
      this.factory = factory;
      for (Bound b : bound) {
        b.registerActivity(factory);
      }
    }
    return this;
  }

  /**
   * Registers this binder's meters in {@code registry}: the meters without a lock name at once, at
   * zero, and those of each {@code name} tag value when its first event comes. Binding again to the
   * same registry does nothing.
   *
   * @param registry the registry
   * @throws NullPointerException if {@code registry} is null
   * @throws IllegalStateException if this binder is closed
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("closed");
      }
      for (Bound b : bound) {
        if (b.registry == registry) {
          return;
        }
      }
      Bound b = new Bound(registry);
      if (nameTags == null) {
        b.meters("");
      }
      if (factory != null) {
        b.registerActivity(factory);
      }
      bound.add(b);
    }
  }

  /**
   * Removes every meter this binder registered from the registries it was bound to, and makes
   * {@link #listener()} do nothing from now on. Closing again does nothing.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      factory = null;
      for (Bound b : bound) {
        b.removeAll();
      }
      bound.clear();
    }
  }

  /** The {@code name} tag's value of {@code lockName}; {@code ""} without per-name tags. */
  private String tagOf(String lockName) {
    return nameTags == null || bound.isEmpty() ? "" : nameTags.tagOf(lockName);
  }

  /** The meters of one registry. */
  private final class Bound {
    final MeterRegistry registry;
    final ConcurrentHashMap<String, PerName> byTag = new ConcurrentHashMap<>();
    final List<Meter> registered = new ArrayList<>(); // guarded by RedisLockMetrics.this.lock

    Bound(MeterRegistry registry) {
      this.registry = registry;
    }

    /** The meters of the tag value {@code tag}, registered on first use; null once closed. */
    PerName meters(String tag) {
      PerName meters = byTag.get(tag);
      if (meters != null) {
        return meters;
      }
      synchronized (lock) {
        if (closed) {
          return null;
        }
        return byTag.computeIfAbsent(tag, t -> new PerName(this, t));
      }
    }

    <M extends Meter> M add(M meter) {
      registered.add(meter);
      return meter;
    }

    void registerActivity(RedisLockFactory factory) {
      gauge(
          factory,
          "redis.lock.holds.renewing",
          a -> a.renewingHoldCount(),
          "holds of this JVM whose leases the factory renews");
      gauge(
          factory,
          "redis.lock.names.in.use",
          a -> a.namesInUseCount(),
          "lock names some thread of this JVM holds or waits for");
      gauge(
          factory,
          "redis.lock.channels.subscribed",
          a -> a.subscribedChannelCount(),
          "wake-up channels the factory is subscribed to");
      gauge(
          factory,
          "redis.lock.threads",
          a -> a.threadsPerNode().values().stream().mapToInt(Integer::intValue).sum(),
          "background threads of the factory, all Redis nodes together");
      add(
          FunctionCounter.builder(
                  "redis.lock.turns.given", factory, f -> f.activity().turnsGivenCount())
              .description(PREFIX + "releases after which the factory gave way to other processes")
              .tags(commonTags)
              .register(registry));
      add(
          FunctionCounter.builder(
                  "redis.lock.wakeups.spurious", factory, f -> f.activity().spuriousWakeUpCount())
              .description(PREFIX + "condition awaits that returned without a signal")
              .tags(commonTags)
              .register(registry));
    }

    private void gauge(
        RedisLockFactory factory,
        String name,
        ToDoubleFunction<LockActivity> figure,
        String description) {
      add(
          Gauge.builder(name, factory, f -> figure.applyAsDouble(f.activity()))
              .description(PREFIX + description)
              .tags(commonTags)
              .register(registry));
    }

    void removeAll() {
      for (Meter meter : registered) {
        registry.remove(meter);
      }
      registered.clear();
      byTag.clear();
    }
  }

  /** The pushed meters of one {@code name} tag value (or of all names, without the tag). */
  private final class PerName {
    final Counter acquired;
    final Counter timedOut;
    final Counter failed;
    final Timer waitAcquired;
    final Timer waitTimedOut;
    final Timer waitFailed;
    final Counter handoffs;
    final Timer hold;
    final Counter lost;
    final Counter renewals;
    final Counter redisErrors;

    PerName(Bound b, String tag) {
      Tags tags = nameTags == null ? commonTags : commonTags.and(NAME, tag);
      acquired = acquisitions(b, tags, "acquired");
      timedOut = acquisitions(b, tags, "timeout");
      failed = acquisitions(b, tags, "failed");
      waitAcquired = waitTimer(b, tags, "acquired");
      waitTimedOut = waitTimer(b, tags, "timeout");
      waitFailed = waitTimer(b, tags, "failed");
      handoffs =
          counter(
              b,
              "redis.lock.handoffs",
              tags,
              "acquisitions handed over by another thread of this JVM");
      hold =
          b.add(
              Timer.builder("redis.lock.hold")
                  .description(
                      PREFIX + "time each hold was held in Redis, from acquisition to release")
                  .tags(tags)
                  .register(b.registry));
      lost = counter(b, "redis.lock.holds.lost", tags, "holds lost before their release");
      renewals = counter(b, "redis.lock.renewals", tags, "leases renewed");
      redisErrors =
          counter(
              b,
              "redis.lock.redis.errors",
              tags,
              "Redis calls of acquisitions, renewals and releases that failed");
    }

    private Counter acquisitions(Bound b, Tags tags, String result) {
      return counter(
          b,
          "redis.lock.acquisitions",
          tags.and(RESULT, result),
          "lock calls of threads that did not hold the lock, by result");
    }

    private Timer waitTimer(Bound b, Tags tags, String result) {
      return b.add(
          Timer.builder("redis.lock.wait")
              .description(PREFIX + "time each lock call waited, by result")
              .tags(tags.and(RESULT, result))
              .register(b.registry));
    }

    private Counter counter(Bound b, String name, Tags tags, String description) {
      return b.add(
          Counter.builder(name).description(PREFIX + description).tags(tags).register(b.registry));
    }
  }

  /** Pushes each event to the meters of every registry bound. */
  private final class Listener implements LockStatsListener {
    @Override
    public void acquired(String lockName, long waitNanos, boolean handoff) {
      String tag = tagOf(lockName);
      for (Bound b : bound) {
        PerName m = b.meters(tag);
        if (m != null) {
          m.acquired.increment();
          m.waitAcquired.record(waitNanos, TimeUnit.NANOSECONDS);
          if (handoff) {
            m.handoffs.increment();
          }
        }
      }
    }

    @Override
    public void notAcquired(String lockName, long waitNanos, boolean timedOut) {
      String tag = tagOf(lockName);
      for (Bound b : bound) {
        PerName m = b.meters(tag);
        if (m != null) {
          (timedOut ? m.timedOut : m.failed).increment();
          (timedOut ? m.waitTimedOut : m.waitFailed).record(waitNanos, TimeUnit.NANOSECONDS);
        }
      }
    }

    @Override
    public void released(String lockName, long heldNanos) {
      String tag = tagOf(lockName);
      for (Bound b : bound) {
        PerName m = b.meters(tag);
        if (m != null) {
          m.hold.record(heldNanos, TimeUnit.NANOSECONDS);
        }
      }
    }

    @Override
    public void lostHold(String lockName, String reason) {
      String tag = tagOf(lockName);
      for (Bound b : bound) {
        PerName m = b.meters(tag);
        if (m != null) {
          m.lost.increment();
        }
      }
    }

    @Override
    public void redisError(String lockName) {
      String tag = tagOf(lockName);
      for (Bound b : bound) {
        PerName m = b.meters(tag);
        if (m != null) {
          m.redisErrors.increment();
        }
      }
    }

    @Override
    public void renewed(String lockName) {
      String tag = tagOf(lockName);
      for (Bound b : bound) {
        PerName m = b.meters(tag);
        if (m != null) {
          m.renewals.increment();
        }
      }
    }
  }

  /** Settings of a {@link RedisLockMetrics}. Not thread-safe; each setting may be given once. */
  public static final class Builder {
    private Tags tags = Tags.empty();
    private boolean tagsSet;
    private int maxNames;

    private Builder() {}

    /**
     * Gives the counters and timers a {@code name} tag: the lock's name for the first {@code
     * maxNames} distinct lock names that this binder sees, {@value RedisLockMetrics#OTHER_NAMES}
     * for every later one (names seen first keep their tag for the binder's life). Without it, the
     * default, they have no {@code name} tag and count every lock together. Keep {@code maxNames}
     * near the number of fixed names the application uses: each tag value makes a series of each
     * meter. A lock named {@value RedisLockMetrics#OTHER_NAMES} shares its series with the folded
     * names.
     *
     * @param maxNames how many lock names get a tag of their own, at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code maxNames} is less than 1
     * @throws IllegalStateException if it was set already
     */
    public Builder perNameTags(int maxNames) {
      if (maxNames < 1) {
        throw new IllegalArgumentException("maxNames must be at least 1, got " + maxNames);
      }
      if (this.maxNames != 0) {
        throw new IllegalStateException("perNameTags was already set");
      }
      this.maxNames = maxNames;
      return this;
    }

    /**
     * Gives every meter these tags, e.g. to tell the meters of several factories apart.
     *
     * @param tags the tags
     * @return this builder
     * @throws NullPointerException if {@code tags} is null
     * @throws IllegalStateException if tags were set already
     */
    public Builder tags(Iterable<Tag> tags) {
      Objects.requireNonNull(tags, "tags");
      if (tagsSet) {
        throw new IllegalStateException("tags were already set");
      }
      this.tags = Tags.of(tags);
      this.tagsSet = true;
      return this;
    }

    /**
     * Gives every meter these tags, as key-value pairs: {@code tags("factory", "orders")}.
     *
     * @param keyValues the keys and values, in pairs
     * @return this builder
     * @throws NullPointerException if {@code keyValues} or one of them is null
     * @throws IllegalArgumentException if their number is odd
     * @throws IllegalStateException if tags were set already
     */
    public Builder tags(String... keyValues) {
      Objects.requireNonNull(keyValues, "keyValues");
      return tags(Tags.of(keyValues));
    }

    /**
     * Returns a binder with these settings.
     *
     * @return the binder
     */
    public RedisLockMetrics build() {
      return new RedisLockMetrics(this);
    }
  }
}
