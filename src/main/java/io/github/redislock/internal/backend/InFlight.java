package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.Round;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The acquisition rounds whose replies are not all in yet, by owner token: a release that knows
 * only the token (the clean-up of an attempt nobody will use) is sent behind the round, so that it
 * reaches a master after an acquisition still on its way there, never before. A round is forgotten
 * once every master has answered it or failed. Thread-safe.
 */
final class InFlight {
  private final Map<String, Round<Acquisition>> rounds = new ConcurrentHashMap<>();

  /**
   * Remembers {@code round}, the last acquisition round of {@code token}, while it is missing
   * replies.
   */
  void remember(String token, Round<Acquisition> round) {
    if (round.unanswered() == 0) {
      return;
    }
    rounds.put(token, round);
    AtomicInteger missing = new AtomicInteger(round.nodes().size());
    round.whenEachDone(
        (node, reply) -> {
          if (missing.decrementAndGet() == 0) {
            rounds.remove(token, round);
          }
        });
  }

  /**
   * The round of {@code token} still missing replies.
   *
   * @return the round, or {@code null} when every master has answered
   */
  Round<Acquisition> of(String token) {
    return rounds.get(token);
  }
}
