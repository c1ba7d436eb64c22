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
 * whatever the name looks like; and distinct lock keys never share one of them, so that a lock is
 * never reached through another's keys or channel (the design note on {@code companionBase}).
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
   * @throws IllegalArgumentException if {@code lockKey} is empty, not Unicode text, or reserved
   *     ({@link #checkLockKey})
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
   * counter, and each would break the other ({@code WRONGTYPE}). Refuses an empty key too (it has
   * no slot of its own to keep companions in), and one that is not Unicode text ({@link
   * #checkUnicode}).
   *
   * @param lockKey the lock key, {@code prefix + name}
   * @throws IllegalArgumentException if the key is empty, has a lone surrogate or is reserved
   */
  public static void checkLockKey(String lockKey) {
    if (lockKey.isEmpty()) {
      throw new IllegalArgumentException("the lock key is empty");
    }
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
   * that part is not empty (the hash tag); otherwise the whole key. Every other key of a lock is
   * its base, then ":lock-" and lowercase letters. The base of the lock key K:
   *   1. K has no '}': K in braces, whose tag is all of K: "a" -> "{a}", "a{b" -> "{a{b}";
   *   2. K has a '}' but no tag ("a}b", "{}x"): no wrapping can reproduce its hash, so a short
   *      tag t of K's slot goes in front: "a}b" -> "{1ig}a}b";
   *   3. K has a tag T: K itself, "{user}:x" -> "{user}:x:lock-meta"; but a K that looks like a
   *      base of rows 1 and 2 gets one more "{T}" in front: "{a}" -> "{a}{a}", "{a}{a}" ->
   *      "{a}{a}{a}", "{1ig}a}b" -> "{1ig}{1ig}a}b". K looks like such a base when it is "{T}"
   *      repeated n >= 1 times, then a rest R that is empty, or has a '}', no tag and T as its
   *      slot tag t.
   *
   * Every base is in the lock key's slot: rows 1 and 2 by their tag, row 3 by K's own tag T.
   *
   * Distinct lock keys have distinct bases. Call the strings "{T}"^n R above the look-alikes;
   * each reads back as T, n and R one way only (R never starts with "{T}": it is empty or has no
   * tag). Rows 1 and 2 give look-alikes with n = 1 (row 1 with R empty, row 2 with R = K); the
   * look-alikes of row 3 give look-alikes with n >= 2 (their own, with one more "{T}"); the rest
   * of row 3 gives keys that are not look-alikes (themselves). So no two rows give one base, and
   * within each row the base gives K back.
   *
   * Distinct bases have distinct companion keys: the suffix of a companion key starts at its last
   * ':', since lowercase letters follow it. And no lock key is a companion key, since no lock key
   * ends in ":lock-" and lowercase letters (checkLockKey). KeyLayoutPropertyTest checks all this
   * on generated names.
   */
  static String companionBase(String key) {
    int open = key.indexOf('{');
    int close = open < 0 ? -1 : key.indexOf('}', open + 1);
    if (close > open + 1) {
      String tag = key.substring(0, close + 1);
      return open == 0 && looksLikeABase(key, tag) ? tag + key : key;
    }
    if (key.indexOf('}') < 0) {
      return '{' + key + '}';
    }
    return '{' + slotTag(key) + '}' + key;
  }

  /**
   * Whether {@code key}, which starts with its hash tag {@code tag} ({@code "{T}"}), is {@code tag}
   * repeated, then nothing or a rest that has a {@code '}'}, no hash tag and {@code T} as its slot
   * tag: the base of another lock key.
   */
  private static boolean looksLikeABase(String key, String tag) {
    int rest = 0;
    while (key.startsWith(tag, rest)) {
      rest += tag.length();
    }
    if (rest == key.length()) {
      return true;
    }
    String remainder = key.substring(rest);
    return remainder.indexOf('}') >= 0
        && !hasHashTag(remainder)
        && tag.equals('{' + slotTag(remainder) + '}');
  }

  static boolean hasHashTag(String key) {
    int open = key.indexOf('{');
    if (open < 0) {
      return false;
    }
    int close = key.indexOf('}', open + 1);
    return close > open + 1;
  }

  private static String slotTag(String key) {
    return SlotTags.forSlot(JedisClusterCRC16.getSlot(key));
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
