package io.github.redislock.internal.backend;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The Redis names of one condition of a lock, all beside the lock key (in its cluster slot). A
 * condition is numbered (the n-th {@code newCondition()} of a lock object) or named ({@code
 * newCondition(name)}); its suffix is {@code cond}, then {@code a} for a number or {@code b} for a
 * name, then every hex digit of the UTF-8 bytes of the number or name written as a letter from
 * {@code a} (0) to {@code p} (15), then one letter for the key's role. Suffixes are lowercase
 * letters only ({@link LockKeys#beside}), so no lock name can be one of them; and as the encoding
 * uses no letter past {@code p}, the role letter (from {@code q} on) ends it, so no two conditions
 * share a key. The second condition of lock {@code buf} is {@code {buf}:lock-condadcq} and so on.
 *
 * @param queue the awaiters, by order of arrival
 * @param leases the awaiters' leases
 * @param signalled the signalled awaiters that have not taken the lock again, with their leases
 * @param channel the condition's Pub/Sub channel, on which signals name their awaiters
 * @param sequence the companion hash's field that numbers the awaiters
 */
public record ConditionKeys(
    String queue, String leases, String signalled, String channel, String sequence) {

  public ConditionKeys {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(leases, "leases");
    Objects.requireNonNull(signalled, "signalled");
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(sequence, "sequence");
  }

  /**
   * The keys of a condition of the lock whose keys are {@code lock}.
   *
   * @param name the condition's number (as decimal digits) or name
   * @param numbered whether it is the n-th {@code newCondition()} rather than a named one
   */
  public static ConditionKeys of(LockKeys lock, String name, boolean numbered) {
    String base = LockKeys.CONDITION + (numbered ? 'a' : 'b') + letters(name);
    return new ConditionKeys(
        lock.beside(base + "q"),
        lock.beside(base + "t"),
        lock.beside(base + "s"),
        lock.beside(base + "w"),
        base);
  }

  /** Each hex digit of {@code name}'s UTF-8 bytes as a letter from {@code a} to {@code p}. */
  static String letters(String name) {
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    char[] letters = new char[2 * bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      letters[2 * i] = (char) ('a' + ((bytes[i] >> 4) & 0xf));
      letters[2 * i + 1] = (char) ('a' + (bytes[i] & 0xf));
    }
    return new String(letters);
  }
}
