package io.github.redislock.internal.backend;

import java.util.Locale;
import java.util.Objects;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The Redis names used by one lock: the lock key itself (wire-compatible with every client that
 * speaks {@code SET key token NX PX ttl}), its companion hash (the fencing counter), its wake-up
 * channel, and the keys that fair and read-write locks and the holder's description keep beside it.
 * Every such name is spelled here (a condition's keys by {@link ConditionKeys}, through {@link
 * #beside}). They all hash to the lock key's cluster slot, so the lock's scripts never cross slots,
 * whatever the name looks like.
 *
 * @param lock the lock key, {@code prefix + name}
 * @param companion the hash whose field {@code c} is the lock's fencing counter
 * @param channel the pub/sub channel a release publishes on
 */
public record LockKeys(String lock, String companion, String channel) {

  public LockKeys {
    Objects.requireNonNull(lock, "lock");
    Objects.requireNonNull(companion, "companion");
    Objects.requireNonNull(channel, "channel");
  }

  /** The start of the suffix of every companion key (and channel) of a lock. */
  private static final String RESERVED = ":lock-";

  /** The suffix of the companion hash, whose field {@code c} is the fencing counter. */
  private static final String META = "meta";

  /** The suffix of the wake-up channel. */
  private static final String WAKE = "wake";

  /** The suffix of a fair lock's queue. */
  private static final String FAIR_QUEUE = "fq";

  /** The suffix of a fair lock's queue leases. */
  private static final String FAIR_LEASES = "ft";

  /** The suffix of a read-write lock's read shares. */
  private static final String READ_SHARES = "rs";

  /** The suffix of a read-write lock's writers' intents. */
  private static final String WRITER_INTENTS = "wi";

  /** The suffix of the holder's description ({@code describeHolders()}). */
  private static final String HOLDER = "holder";

  /** The start of the suffix of every key of a condition ({@link ConditionKeys}). */
  static final String CONDITION = "cond";

  /** A fair lock's queue, a sorted set: waiter id to place number. */
  public String fairQueue() {
    return beside(FAIR_QUEUE);
  }

  /** A fair lock's queue leases, a sorted set: waiter id to the server time its place ends. */
  public String fairLeases() {
    return beside(FAIR_LEASES);
  }

  /** A read-write lock's read shares, a sorted set: share token to the end of its lease. */
  public String readShares() {
    return beside(READ_SHARES);
  }

  /** A read-write lock's waiting writers' intents: writer id to the end of its intent. */
  public String writerIntents() {
    return beside(WRITER_INTENTS);
  }

  /** The holder's description, a hash written only with {@code describeHolders()}. */
  public String holder() {
    return beside(HOLDER);
  }

  /**
   * Another key this lock keeps beside its own, in its cluster slot: {@code suffix} is lowercase
   * letters, so that no lock name can be it ({@link #checkLockKey}).
   *
   * @param suffix lowercase letters naming the key, e.g. {@code "fq"} for a fair lock's queue
   * @return the key
   */
  String beside(String suffix) {
    return companion.substring(0, companion.length() - META.length()) + suffix;
  }

  /**
   * Derives the keys of the lock whose Redis key is {@code lockKey}.
   *
   * @throws IllegalArgumentException if {@code lockKey} is reserved ({@link #checkLockKey})
   */
  public static LockKeys of(String lockKey) {
    checkLockKey(lockKey);
    String base = companionBase(lockKey);
    return new LockKeys(lockKey, base + RESERVED + META, base + RESERVED + WAKE);
  }

  /**
   * Refuses a lock key that could be another lock's companion key: one that ends in {@code
   * ":lock-"} followed by lowercase letters, the form of every companion key and channel, now and
   * in later versions. The lock named {@code "{a}:lock-meta"} would be lock {@code a}'s fencing
   * counter, and each would break the other ({@code WRONGTYPE}).
   *
   * @param lockKey the lock key, {@code prefix + name}
   * @throws IllegalArgumentException if the key is reserved
   */
  public static void checkLockKey(String lockKey) {
    checkUnicode("the lock key", lockKey);
    int suffix = lockKey.lastIndexOf(RESERVED);
    if (suffix < 0 || suffix + RESERVED.length() == lockKey.length()) {
      return;
    }
    for (int i = suffix + RESERVED.length(); i < lockKey.length(); i++) {
      char c = lockKey.charAt(i);
      if (c < 'a' || c > 'z') {
        return;
      }
    }
    throw new IllegalArgumentException(
        "the lock key '"
            + lockKey
            + "' ends in '"
            + lockKey.substring(suffix)
            + "': keys ending in '"
            + RESERVED
            + "' and lowercase letters are reserved for the keys a lock keeps beside its own (the"
            + " fencing counter of lock 'a' is '{a}"
            + RESERVED
            + META
            + "'), so no lock may have one; choose another name");
  }

  /**
   * Refuses text that is not Unicode: a lone surrogate has no UTF-8 form, and the client would send
   * {@code '?'} in its place, so that two different names would be one key.
   *
   * @param what the text's role, for the message, e.g. {@code "the lock key"}
   * @param text the text
   * @throws IllegalArgumentException if {@code text} has a lone surrogate
   */
  public static void checkUnicode(String what, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(
            what
                + " has a lone surrogate (U+"
                + Integer.toHexString(c).toUpperCase(Locale.ROOT)
                + ") at index "
                + i
                + ": it is not Unicode text and has no UTF-8 form (Redis would get '?' in its"
                + " place, making two names one)");
      }
    }
  }

  /*
   * Redis Cluster hashes only the part between the first '{' and the first '}' after it, when
   * that part is non-empty (the hash tag); otherwise the whole key. Three cases:
   *   - the key has a hash tag: any suffix keeps it, so "{user}:x" -> "{user}:x:lock-meta";
   *   - the key has no '}': wrapping it in braces makes the whole key the tag: "a" -> "{a}";
   *   - the key has a '}' but no valid tag ("a}b", "{}x"): no wrapping can reproduce its hash,
   *     so we prefix a short tag chosen to hash to the same slot: "{7fq}a}b".
   */
  static String companionBase(String key) {
    if (hasHashTag(key)) {
      return key;
    }
    if (key.indexOf('}') < 0) {
      return '{' + key + '}';
    }
    return '{' + SlotTags.forSlot(JedisClusterCRC16.getSlot(key)) + '}' + key;
  }

  static boolean hasHashTag(String key) {
    int open = key.indexOf('{');
    if (open < 0) {
      return false;
    }
    int close = key.indexOf('}', open + 1);
    return close > open + 1;
  }

  /** One short tag per cluster slot, computed once on first use (about 100k CRC16 evaluations). */
  private static final class SlotTags {
    private static final int SLOTS = 16384;
    private static final String[] TAGS = compute();

    static String forSlot(int slot) {
      return TAGS[slot];
    }

    private static String[] compute() {
      String[] tags = new String[SLOTS];
      int found = 0;
      for (int i = 0; found < SLOTS; i++) {
        String tag = Integer.toString(i, 36);
        int slot = JedisClusterCRC16.getSlot(tag);
        if (tags[slot] == null) {
          tags[slot] = tag;
          found++;
        }
      }
      return tags;
    }
  }
}
