package io.github.redislock.internal.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The key layout, by property: over generated lock keys (braces anywhere, empty and nested tags,
 * colons, the layout's own suffixes and pieces of them, long and non-ASCII names, lone surrogates,
 * with and without key prefixes), no two distinct lock keys share a key or channel, every key a
 * lock keeps beside its own has the reserved form ({@code :lock-} and lowercase letters at its
 * end), and every key of a lock hashes to the lock key's slot. Every generated lock key is refused
 * exactly when it has the reserved form or a lone surrogate, so no lock can have another's
 * companion key.
 *
 * <p>The names come from a seed, {@value #DEFAULT_SEED} unless the system property {@value
 * #SEED_PROPERTY} gives another (e.g. {@code -Dredislock.test.seed=42}); a failure names the seed
 * it ran with. The generator makes the names that look alike on purpose, {@code K} beside {@code
 * {K}} and {@code {t}K} (where {@code t} is a short tag of {@code K}'s slot, as wire-protocol.md
 * defines it), and {@code K} beside {@code K} with a suffix or with its own tag in front, checked
 * by {@link #theGeneratorMakesNamesThatLookAlike}.
 */
class KeyLayoutPropertyTest {
  static final String SEED_PROPERTY = "redislock.test.seed";
  static final long DEFAULT_SEED = 20_261_201L;
  private static final int NAMES = 10_000;
  private static final int MAX_REPORTED = 20;

  /** The form of every key and channel a lock keeps beside its own, and no lock key may have. */
  private static final Pattern RESERVED = Pattern.compile(".*:lock-[a-z]+", Pattern.DOTALL);

  private static final String[] FRAGMENTS = {
    "orders",
    "a",
    "b",
    "x",
    "user:42",
    "job",
    "{",
    "}",
    "{}",
    "{x}",
    "}{",
    "{{",
    "}}",
    "{a}{b}",
    ":",
    "::",
    "-",
    " ",
    "lock",
    "lock-",
    ":lock-",
    "lock-meta",
    ":lock-meta",
    ":lock-wake",
    ":lock-fq",
    "{x}:lock-fq",
    ":lock-rs",
    ":lock-holder",
    ":lock-cond",
    "condadb",
    "q",
    "meta",
    "0",
    "1",
    "7",
    "z",
    "é",
    "ü",
    "日本",
    "\uD83D\uDD12",
    "\u0000",
    "\t",
    "\\",
    "*",
    "\"",
  };

  private static final String[] PREFIXES = {
    "", "", "", "app:", "{app}:", "{", "}", "{}", "x}", "{app", "}app{", "ü:", ":lock-", "{x}",
  };

  private static final String[] LONE_SURROGATES = {"\uD800", "\uDBFF", "\uDC00", "\uDFFF"};

  static long seed() {
    return Long.getLong(SEED_PROPERTY, DEFAULT_SEED);
  }

  @Test
  void distinctLockKeysNeverShareAKeyOrChannelAndEveryKeyIsInTheLockKeysSlot() {
    long seed = seed();
    Names names = new Names(seed);
    Set<String> lockKeys = names.generate(NAMES);
    List<String> conditions = List.of("", names.fresh(1), names.fresh(2), names.fresh(3));
    String rerun = " (seed " + seed + ": rerun with -D" + SEED_PROPERTY + "=" + seed + ")";
    Map<String, Owner> owners = new HashMap<>();
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (String lockKey : lockKeys) {
      LockKeys keys;
      try {
        keys = LockKeys.of(lockKey);
      } catch (IllegalArgumentException e) {
        if (!hasLoneSurrogate(lockKey) && !RESERVED.matcher(lockKey).matches()) {
          failures.add("lock key " + quote(lockKey) + " was refused: " + e.getMessage());
        }
        continue;
      }
      if (hasLoneSurrogate(lockKey) || RESERVED.matcher(lockKey).matches()) {
        failures.add("lock key " + quote(lockKey) + " was accepted");
        continue;
      }
      checked++;
      int slot = JedisClusterCRC16.getSlot(lockKey);
      for (Map.Entry<String, String> named : everyKeyOf(keys, conditions).entrySet()) {
        String role = named.getKey();
        String key = named.getValue();
        Owner owner = new Owner(lockKey, role);
        Owner previous = owners.putIfAbsent(key, owner);
        if (previous != null) {
          failures.add(quote(key) + " is both " + previous + " and " + owner);
        }
        if (JedisClusterCRC16.getSlot(key) != slot) {
          failures.add(owner + " " + quote(key) + " is not in the lock key's slot " + slot);
        }
        if (!role.equals("lock") && !RESERVED.matcher(key).matches()) {
          failures.add(
              owner
                  + " "
                  + quote(key)
                  + " does not end in ':lock-' and lowercase letters, so a lock could have it");
        }
      }
    }
    assertThat(failures.subList(0, Math.min(failures.size(), MAX_REPORTED)))
        .as(
            "%d breaches of the layout among %d lock keys%s",
            failures.size(), lockKeys.size(), rerun)
        .isEmpty();
    assertThat(checked).as("lock keys accepted" + rerun).isGreaterThan(NAMES / 2);
  }

  @Test
  void theGeneratorMakesNamesThatLookAlike() {
    Set<String> lockKeys = new Names(seed()).generate(NAMES);
    int wrapped = 0;
    int slotTagged = 0;
    int ownTagInFront = 0;
    int suffixed = 0;
    for (String key : lockKeys) {
      if (lockKeys.contains("{" + key + "}")) {
        wrapped++;
      }
      if (key.indexOf('}') >= 0 && !Names.hasHashTag(key)) {
        if (lockKeys.contains("{" + Names.slotTag(key) + "}" + key)) {
          slotTagged++;
        }
      }
      String tag = Names.hashTag(key);
      if (tag != null && lockKeys.contains("{" + tag + "}" + key)) {
        ownTagInFront++;
      }
      if (lockKeys.contains(key + ":lock-meta") || lockKeys.contains("{" + key + "}:lock-meta")) {
        suffixed++;
      }
    }
    assertThat(wrapped).as("K beside {K}").isGreaterThan(500);
    assertThat(slotTagged).as("K with a '}' and no tag beside {t}K").isGreaterThan(100);
    assertThat(ownTagInFront).as("K with tag T beside {T}K").isGreaterThan(100);
    assertThat(suffixed).as("K beside K:lock-meta or {K}:lock-meta").isGreaterThan(100);
  }

  @Test
  void theSeedComesFromTheSystemProperty() {
    String before = System.getProperty(SEED_PROPERTY);
    try {
      System.setProperty(SEED_PROPERTY, "42");
      assertThat(seed()).isEqualTo(42);
      assertThat(new Names(42).generate(100)).isEqualTo(new Names(42).generate(100));
    } finally {
      if (before == null) {
        System.clearProperty(SEED_PROPERTY);
      } else {
        System.setProperty(SEED_PROPERTY, before);
      }
    }
  }

  /** The lock key that has a key, and what that key is to it: formatted only for a failure. */
  private record Owner(String lockKey, String role) {
    @Override
    public String toString() {
      return quote(lockKey) + "'s " + role;
    }
  }

  /**
   * Every key and channel of the lock key of {@code keys}, by role, for every kind of lock: with
   * numbered conditions 0 to 2 and the named {@code conditions}.
   */
  private static Map<String, String> everyKeyOf(LockKeys keys, List<String> conditions) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("lock", keys.lock());
    all.put("fencing hash", keys.companion());
    all.put("wake channel", keys.channel());
    all.put("holder hash", keys.holder());
    all.put("fair queue", keys.fairQueue());
    all.put("fair leases", keys.fairLeases());
    all.put("read shares", keys.readShares());
    all.put("writer intents", keys.writerIntents());
    for (int n = 0; n <= 2; n++) {
      putCondition(all, "condition " + n, ConditionKeys.of(keys, Integer.toString(n), true));
    }
    for (String name : conditions) {
      putCondition(all, "condition " + quote(name), ConditionKeys.of(keys, name, false));
    }
    return all;
  }

  private static void putCondition(Map<String, String> all, String what, ConditionKeys keys) {
    all.put(what + " queue", keys.queue());
    all.put(what + " leases", keys.leases());
    all.put(what + " signalled", keys.signalled());
    all.put(what + " channel", keys.channel());
  }

  private static boolean hasLoneSurrogate(String text) {
    return !text.codePoints().allMatch(c -> c < Character.MIN_SURROGATE || c > 0xDFFF);
  }

  private static String quote(String text) {
    StringBuilder quoted = new StringBuilder("'");
    text.codePoints()
        .forEach(
            c -> {
              if (c < 0x20 || (c <= 0xFFFF && Character.isSurrogate((char) c))) {
                quoted.append(String.format("\\u%04x", c));
              } else {
                quoted.appendCodePoint(c);
              }
            });
    return quoted.append('\'').toString();
  }

  /**
   * Lock keys ({@code prefix + name}) from a seed: fresh ones from fragments, and ones made from
   * keys generated before so that names that look alike meet.
   */
  static final class Names {
    private static final String[] SLOT_TAGS = slotTags();
    private static final int MAX_DERIVED = 300;
    private final Random random;
    private final List<String> made = new ArrayList<>();

    Names(long seed) {
      this.random = new Random(seed);
    }

    /** {@code count} distinct lock keys. */
    Set<String> generate(int count) {
      Set<String> keys = new LinkedHashSet<>();
      while (keys.size() < count) {
        String key = next();
        if (!key.isEmpty() && keys.add(key)) {
          made.add(key);
        }
      }
      return keys;
    }

    private String next() {
      int choice = random.nextInt(100);
      if (made.isEmpty() || choice < 30) {
        return pick(PREFIXES) + fresh(1 + random.nextInt(6));
      }
      String earlier = made.get(random.nextInt(made.size()));
      if (earlier.length() > MAX_DERIVED) {
        earlier = fresh(2); // long names are made by longName(), not by growing short ones
      }
      if (choice < 45) {
        return "{" + earlier + "}";
      }
      if (choice < 55) {
        String base = earlier.replace("}", "");
        return random.nextBoolean() ? base + "}" + fresh(1) : "}" + base;
      }
      if (choice < 65) {
        return "{" + slotTag(earlier) + "}" + earlier;
      }
      if (choice < 75) {
        String tag = hashTag(earlier);
        return "{" + (tag != null ? tag : earlier.replace("}", "")) + "}" + earlier;
      }
      if (choice < 83) {
        return earlier + pick(FRAGMENTS);
      }
      if (choice < 88) {
        return pick(PREFIXES) + earlier;
      }
      if (choice < 92) {
        return longName();
      }
      if (choice < 95) {
        StringBuilder broken = new StringBuilder(earlier);
        broken.insert(random.nextInt(broken.length() + 1), pick(LONE_SURROGATES));
        return broken.toString();
      }
      if (choice < 98) {
        return earlier + ":lock-" + pick(new String[] {"meta", "wake", "fq", "x", "condadbq"});
      }
      return fresh(1) + random.nextInt(1000);
    }

    /** A name of {@code fragments} pieces, without a lone surrogate. */
    String fresh(int fragments) {
      StringBuilder name = new StringBuilder();
      for (int i = 0; i < fragments; i++) {
        if (random.nextInt(5) == 0) {
          name.appendCodePoint(randomCodePoint());
        } else {
          name.append(pick(FRAGMENTS));
        }
      }
      return name.toString();
    }

    private String longName() {
      StringBuilder name = new StringBuilder();
      int length = 256 + random.nextInt(768);
      while (name.length() < length) {
        name.append(fresh(1));
      }
      return name.toString();
    }

    private int randomCodePoint() {
      return switch (random.nextInt(4)) {
        case 0 -> 0x20 + random.nextInt(0x5f); // printable ASCII, braces included
        case 1 -> 0xa0 + random.nextInt(0x2000);
        case 2 -> 0xe000 + random.nextInt(0x2000); // past the surrogates
        default -> 0x10000 + random.nextInt(0x10000); // a surrogate pair in Java
      };
    }

    private String pick(String[] options) {
      return options[random.nextInt(options.length)];
    }

    /** The content of the key's hash tag, as Redis Cluster reads it; null when it has none. */
    static String hashTag(String key) {
      int open = key.indexOf('{');
      if (open < 0) {
        return null;
      }
      int close = key.indexOf('}', open + 1);
      return close > open + 1 ? key.substring(open + 1, close) : null;
    }

    static boolean hasHashTag(String key) {
      return hashTag(key) != null;
    }

    /** The smallest number in base 36 whose slot is the key's (wire-protocol.md). */
    static String slotTag(String key) {
      return SLOT_TAGS[JedisClusterCRC16.getSlot(key)];
    }

    private static String[] slotTags() {
      String[] tags = new String[16384];
      int found = 0;
      for (int i = 0; found < tags.length; i++) {
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
