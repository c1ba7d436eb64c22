package io.github.redislock.internal.backend;

import io.github.redislock.RedisLockException;
import java.util.List;
import redis.clients.jedis.exceptions.JedisAccessControlException;

/**
 * Whether a backend's Redis user may run what the lock needs, asked once, before the backend's
 * first acquisition ({@code access.lua}): a user allowed {@code SET} but not the scripts, or not a
 * command they run, would take a lock it could neither renew nor release, and its key would stay
 * for the whole lease. Refused, the acquisition throws a permanent {@link RedisLockException} that
 * names {@code NOPERM} and every denied command, having taken nothing.
 *
 * <p>The check uses the keys and channel of the first lock acquired; a later lock whose keys fall
 * outside the user's key patterns gets {@code NOPERM} from the command itself. Until a check
 * passes, each acquisition asks again (a check that failed for a transient reason, or raced with
 * another thread's, costs one more script call).
 */
final class AccessCheck {
  private volatile boolean passed;

  /** Whether a check passed already. */
  boolean passed() {
    return passed;
  }

  /** Records that a check passed. */
  void pass() {
    passed = true;
  }

  /**
   * The exception for a user that may not run {@code denied} on the lock.
   *
   * @param keys the lock at hand
   * @param denied the commands refused, each with its key or channel
   * @param where the server or servers that refused, for the message, or empty
   * @return the exception, permanent
   */
  static RedisLockException refused(LockKeys keys, List<String> denied, String where) {
    String message =
        "NOPERM the Redis user may not run "
            + String.join(", ", denied)
            + (where.isEmpty() ? "" : " on " + where)
            + ", which lock '"
            + keys.lock()
            + "' needs to be acquired, renewed and released";
    return new RedisLockException(
        message
            + "; nothing was taken. Grant them to the user (see "
            + "https://github.com/redislock/redis-lock/blob/main/docs/security.md)",
        new JedisAccessControlException(message));
  }
}
