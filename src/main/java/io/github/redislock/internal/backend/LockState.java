package io.github.redislock.internal.backend;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One node's view of a lock name ({@code inspect.lua}), or the view a majority of Redlock masters
 * share ({@link #majority}).
 *
 * @param owner the lock key's value, or {@code null} when not held
 * @param pttlMillis the lock key's remaining time to live: -2 no key, -1 no expiry
 * @param fencingCounter the fencing counter, 0 when none
 * @param subscribers the wake-up channel's subscribers
 * @param readers the live read shares
 * @param host the holder's host, or {@code null} when it did not describe itself
 * @param pid the holder's process id
 * @param thread the holder's thread name
 * @param sinceMillis when the holder acquired, server time in ms
 */
public record LockState(
    String owner,
    long pttlMillis,
    long fencingCounter,
    long subscribers,
    long readers,
    String host,
    long pid,
    String thread,
    long sinceMillis) {

  /** The state in {@code inspect.lua}'s reply: {@code {owner, pttl, counter, holder, ...}}. */
  static LockState parse(Object reply) {
    List<?> values = (List<?>) reply;
    String owner = values.get(0) == null ? null : text(values.get(0));
    Map<String, String> holder = new HashMap<>();
    Object fields = values.get(3);
    if (fields instanceof List<?> flat) {
      for (int i = 0; i + 1 < flat.size(); i += 2) {
        holder.put(text(flat.get(i)), text(flat.get(i + 1)));
      }
    } else if (fields instanceof Map<?, ?> map) { // RESP3 may give a map
      map.forEach((k, v) -> holder.put(text(k), text(v)));
    }
    boolean described = owner != null && owner.equals(holder.get("t"));
    return new LockState(
        owner,
        number(values.get(1)),
        Long.parseLong(text(values.get(2))),
        number(values.get(5)),
        number(values.get(4)),
        described ? holder.get("h") : null,
        described ? Long.parseLong(holder.get("p")) : 0,
        described ? holder.get("n") : null,
        described ? Long.parseLong(holder.get("s")) : 0);
  }

  /**
   * What a majority of {@code quorum} masters agree on: the lock is held when at least {@code
   * quorum} of {@code states} have the same owner, for as long as {@code quorum} of them keep it;
   * the counter and the subscribers are the greatest any master has.
   *
   * @param states the answers of the masters that answered
   */
  static LockState majority(List<LockState> states, int quorum) {
    long counter = 0;
    long subscribers = 0;
    Map<String, Integer> owners = new HashMap<>();
    for (LockState s : states) {
      counter = Math.max(counter, s.fencingCounter);
      subscribers = Math.max(subscribers, s.subscribers);
      if (s.owner != null) {
        owners.merge(s.owner, 1, Integer::sum);
      }
    }
    String owner = null;
    for (Map.Entry<String, Integer> e : owners.entrySet()) {
      if (e.getValue() >= quorum) {
        owner = e.getKey();
      }
    }
    if (owner == null) {
      return new LockState(null, -2, counter, subscribers, 0, null, 0, null, 0);
    }
    String held = owner;
    List<LockState> holding = states.stream().filter(s -> held.equals(s.owner)).toList();
    // The majority holds it until the quorum-th longest time to live runs out (-1: forever).
    List<Long> ttls =
        holding.stream()
            .map(s -> s.pttlMillis < 0 ? Long.MAX_VALUE : s.pttlMillis)
            .sorted((a, b) -> Long.compare(b, a))
            .toList();
    long pttl = ttls.get(quorum - 1) == Long.MAX_VALUE ? -1 : ttls.get(quorum - 1);
    LockState described = holding.stream().filter(s -> s.host != null).findFirst().orElse(null);
    return described == null
        ? new LockState(owner, pttl, counter, subscribers, 0, null, 0, null, 0)
        : new LockState(
            owner,
            pttl,
            counter,
            subscribers,
            0,
            described.host,
            described.pid,
            described.thread,
            described.sinceMillis);
  }

  private static long number(Object value) {
    return ((Number) value).longValue();
  }

  private static String text(Object value) {
    return value instanceof byte[] bytes
        ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
        : value.toString();
  }
}
