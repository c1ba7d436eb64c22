package io.github.redislock.torture;

import io.github.redislock.RedisDistributedLock;
import io.github.redislock.RedisLockFactory;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Names that a careless key layout aliases, in pairs, each name of a pair locked as a kind of its
 * own: a layout that derives the keys beside a lock key {@code K} from {@code {K}} when {@code K}
 * has no hash tag, and from {@code K} itself when it has one, gives {@code m0} and {@code {m0}} the
 * same fair queue, read shares, conditions and wake-up channel; one that prefixes a key with a
 * {@code }} but no tag with a short tag of its slot, {@code {t}K}, does the same to {@code m1}b}
 * and {@code {t}m1}b}. Distinct names must not share anything: the checker's exclusion, fencing and
 * orphan checks see each name on its own, so a waiter of one name woken into the other's lock, or a
 * read share of one counted against the other's writer, shows as two holders or a key left.
 *
 * <p>Name {@code 2p} is the pair's plain form, {@code 2p + 1} its aliasing twin; even pairs alias
 * by braces ({@code m0}, {@code {m0}}), odd ones by a slot tag ({@code m1}b}, {@code {t}m1}b}). The
 * kinds go round by pair: fair and fair, plain lock with conditions on both, fair and read-write,
 * read-write and fair lock with conditions. A factory that lacks a kind (Redlock offers the plain
 * lock only) gets the plain lock for that name.
 */
final class AliasKind implements TortureKind {
  private static final Pattern PAIR = Pattern.compile("m(\\d+)(}b|})?$");
  private static final Map<Integer, String> TAGS = new ConcurrentHashMap<>();

  @Override
  public String id() {
    return "alias";
  }

  @Override
  public String namePrefix() {
    return "m";
  }

  @Override
  public String name(int index) {
    int pair = index / 2;
    String plain = pair % 2 == 0 ? "m" + pair : "m" + pair + "}b";
    if (index % 2 == 0) {
      return plain;
    }
    return pair % 2 == 0 ? "{" + plain + "}" : "{" + slotTag(plain) + "}" + plain;
  }

  @Override
  public boolean available(RedisLockFactory locks) {
    return true;
  }

  @Override
  public Target target(RedisLockFactory locks, String name, SplittableRandom random) {
    Matcher m = PAIR.matcher(name);
    if (!m.find()) {
      return Target.exclusive(locks.getLock(name)); // the probe's name
    }
    int pair = Integer.parseInt(m.group(1));
    boolean twin = name.startsWith("{");
    return switch (pair % 4) {
      case 0 -> fair(locks, name);
      case 1 -> withCondition(locks, name, false, random);
      case 2 -> twin ? readWrite(locks, name, random) : fair(locks, name);
      default -> twin ? withCondition(locks, name, true, random) : readWrite(locks, name, random);
    };
  }

  private static Target fair(RedisLockFactory locks, String name) {
    try {
      return Target.exclusive(locks.getFairLock(name));
    } catch (UnsupportedOperationException e) {
      return Target.exclusive(locks.getLock(name));
    }
  }

  private static Target readWrite(RedisLockFactory locks, String name, SplittableRandom random) {
    try {
      return new ReadWriteKind().target(locks, name, random);
    } catch (UnsupportedOperationException e) {
      return Target.exclusive(locks.getLock(name));
    }
  }

  private static Target withCondition(
      RedisLockFactory locks, String name, boolean fair, SplittableRandom random) {
    String condition = random.nextBoolean() ? "a" : "b";
    RedisDistributedLock lock;
    try {
      lock = fair ? locks.getFairLock(name) : locks.getLock(name);
      lock.newCondition(condition);
    } catch (UnsupportedOperationException e) {
      return Target.exclusive(locks.getLock(name));
    }
    return new Target(
        lock,
        'x',
        lock::getFencingToken,
        lock::isHeldByCurrentThread,
        lock::getHoldCount,
        () -> lock.newCondition(condition));
  }

  /**
   * The smallest number, in base 36, whose Redis Cluster slot is {@code key}'s: the tag a layout
   * would put before a key that has a {@code }} but no hash tag to keep it in its slot.
   */
  static String slotTag(String key) {
    int slot = JedisClusterCRC16.getSlot(key);
    return TAGS.computeIfAbsent(
        slot,
        s -> {
          for (int i = 0; ; i++) {
            String tag = Integer.toString(i, 36);
            if (JedisClusterCRC16.getSlot(tag) == s) {
              return tag;
            }
          }
        });
  }
}
