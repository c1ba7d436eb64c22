package io.github.redislock.internal.backend;

import io.github.redislock.internal.backend.LockCommands.ScriptCall;
import io.github.redislock.internal.transport.Direct;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import redis.clients.jedis.UnifiedJedis;

/**
 * The conditions of locks on one Redis deployment: each condition's awaiters queue in Redis, in the
 * order of their arrival there, and its signals are recorded there, atomically with the check that
 * the signaller holds the lock ({@code condition.lua}, whose header gives the wire format). Every
 * method throws {@code RedisLockException} when Redis fails; each is one script call.
 */
public final class ConditionQueue {
  private final UnifiedJedis client;

  /**
   * The scripts that may release the lock go here, sent at most once: a client's own retry of one
   * whose reply was lost would find the lock released by the first, and pass for a lost hold.
   */
  private final Direct direct;

  /** Checks, at the first await or signal, that the Redis user may run what conditions need. */
  private final Consumer<LockKeys> firstContact;

  private final WireArguments wire;
  private final String lease;
  private final String ttl;
  private final String publish;

  /** The kind of lock a condition belongs to: how an await's or a signal's release releases it. */
  public enum Kind {
    /** A plain lock: the release deletes the key and announces it. */
    PLAIN("plain"),
    /** A fair lock: the release hands the key to the first waiter of its queue. */
    FAIR("fair"),
    /**
     * The write lock of a read-write lock: released as the plain lock is (which wakes the waiting
     * readers and writers), and never handed to an awaiter while a read share is live.
     */
    WRITE("write");

    private final String argument;

    Kind(String argument) {
      this.argument = argument;
    }

    /** The keys beside the lock that its release reads: the fair queue, or the read shares. */
    private List<String> keys(LockKeys lock) {
      return switch (this) {
        case PLAIN -> List.of();
        case FAIR -> List.of(lock.fairQueue(), lock.fairLeases());
        case WRITE -> List.of(lock.readShares());
      };
    }
  }

  /** Where an awaiter stands. */
  public enum Standing {
    /** In the queue, its lease renewed. */
    WAITING,
    /** It left the queue without a signal. */
    LEFT,
    /** Signalled: it takes the lock again, then its signal is {@linkplain #done done}. */
    SIGNALLED,
    /**
     * Signalled, and the release that signalled it handed it the lock: the lock key holds its id.
     * It takes that hold (or releases it), then its signal is {@linkplain #done done}.
     */
    HELD,
    /** Not there: its lease ran out (or Redis lost it), so it may have missed a signal. */
    GONE
  }

  /**
   * The answer to an await.
   *
   * @param release whether the lock was the caller's and is released now (with the listeners on its
   *     channel), or was not the caller's ({@code released()} false: nothing was done)
   * @param sequence the awaiter's number in the order of arrival; 0 when it is signalled already
   * @param signalled whether an earlier call of this awaiter, whose reply was lost, was signalled
   * @param handed whether, signalled so, it was handed the lock too (the key holds its id)
   */
  public record Enqueued(Release release, long sequence, boolean signalled, boolean handed) {}

  /**
   * The answer to a signal.
   *
   * @param holder whether the caller holds the lock; nothing was done when it does not
   * @param awaiter the awaiter {@code signal} woke, or {@code null}
   * @param upTo {@code signalAll}: every awaiter whose number is this or less was woken
   */
  public record Signalled(boolean holder, String awaiter, long upTo) {}

  /**
   * The answer to signals given with a release.
   *
   * @param release whether the lock was the caller's and is released now ({@code released()} false:
   *     nothing was done, nobody signalled)
   * @param awaiters the awaiters woken one by one, oldest first
   * @param upTo for every awaiter: every awaiter whose number is this or less was woken; else 0
   */
  public record SignalledRelease(Release release, List<String> awaiters, long upTo) {}

  ConditionQueue(
      UnifiedJedis client, Direct direct, WireArguments wire, Consumer<LockKeys> firstContact) {
    this.client = client;
    this.direct = direct;
    this.firstContact = firstContact;
    this.wire = wire;
    this.lease = wire.lease();
    this.ttl = wire.companionTtl();
    this.publish = wire.publish();
  }

  /**
   * Checks, until a check passes, that the Redis user may run what conditions of {@code lock} need;
   * an awaiter asks before it gives up its hold, so that a refusal leaves it holding the lock.
   *
   * @throws io.github.redislock.RedisLockException naming {@code NOPERM} if it may not
   */
  public void checkAccess(LockKeys lock) {
    firstContact.accept(lock);
  }

  /**
   * Enqueues awaiter {@code id} and releases the lock of kind {@code kind}, if {@code token} holds
   * it, in one step. A repeated call with the same id (after a lost reply) finds it enqueued, and
   * changes nothing.
   */
  public Enqueued await(
      LockKeys lock, Kind kind, ConditionKeys condition, String token, String id) {
    return new ScriptCall<>(
            "await a condition of",
            lock,
            Script.CONDITION,
            keys(lock, condition, kind),
            args("await", id, token, condition, lock, kind),
            ConditionQueue::enqueued)
        .sendOnce(direct);
  }

  /** Renews the lease of awaiter {@code id}'s entry, and tells where it stands. */
  public Standing renew(LockKeys lock, ConditionKeys condition, String id) {
    return run("wait on a condition of", lock, condition, "wait", id, "", ConditionQueue::renewed);
  }

  /** Awaiter {@code id} stops waiting: it leaves the queue, unless it was signalled. */
  public Standing cancel(LockKeys lock, ConditionKeys condition, String id) {
    return run("leave a condition of", lock, condition, "cancel", id, "", ConditionQueue::left);
  }

  /**
   * Awaiter {@code id} will take neither a signal nor the lock: it leaves the queue; a signal it
   * had passes on to the longest-waiting awaiter at once, and a lock handed to it is released.
   *
   * @param kind the lock's kind, whose release this is
   * @return {@link Standing#LEFT}, {@link Standing#SIGNALLED} (its signal passed on), {@link
   *     Standing#HELD} (its signal passed on, and the lock handed to it released) or {@link
   *     Standing#GONE}
   */
  public Standing abandon(LockKeys lock, Kind kind, ConditionKeys condition, String id) {
    return new ScriptCall<>(
            "abandon a wait on a condition of",
            lock,
            Script.CONDITION,
            keys(lock, condition, kind),
            args("abandon", id, "", condition, lock, kind),
            ConditionQueue::left)
        .sendOnce(direct);
  }

  /** Awaiter {@code id} holds the lock again: its signal is used, and passes on no more. */
  public void done(LockKeys lock, ConditionKeys condition, String id) {
    run("end a wait on a condition of", lock, condition, "done", id, "", reply -> null);
  }

  /**
   * Signals the longest-waiting live awaiter ({@code all}: every awaiter), if {@code token} holds
   * the lock.
   */
  public Signalled signal(LockKeys lock, ConditionKeys condition, String token, boolean all) {
    firstContact.accept(lock);
    return run(
        "signal a condition of",
        lock,
        condition,
        all ? "all" : "signal",
        "",
        token,
        ConditionQueue::signalled);
  }

  /**
   * Signals {@code count} awaiters, the longest-waiting live ones ({@code count} 0: every awaiter),
   * then releases the lock, in one step, if {@code token} holds it: the awaiters woken find the
   * lock free. Repeated after a lost reply, it finds the lock released and does nothing. With
   * {@code ownSubscribers} 0 or 1, on a lock that is not fair, the lock goes to the first awaiter
   * woken instead (the key takes its id, and its message says so), unless a client other than the
   * caller's subscription waits on the lock's channel. A fair lock is never handed to an awaiter
   * (its release hands it to the first waiter of its queue), nor a write lock while a read share is
   * live.
   *
   * @param kind the lock's kind, whose release this is
   * @param ownSubscribers how many of the lock channel's subscribers are the caller's (0 or 1), or
   *     -1 for no hand-over
   */
  public SignalledRelease signalAndRelease(
      LockKeys lock,
      Kind kind,
      ConditionKeys condition,
      String token,
      int count,
      int ownSubscribers) {
    firstContact.accept(lock);
    List<String> keys = keys(lock, condition, kind);
    List<String> args = new ArrayList<>(args("release", "", token, condition, lock, kind));
    args.add(count == 0 ? "all" : Integer.toString(count));
    if (ownSubscribers >= 0) {
      args.add(Integer.toString(ownSubscribers));
    }
    Direct.Reply<SignalledRelease> reply =
        direct.send(
            new ScriptCall<>(
                "signal and release", lock, Script.CONDITION, keys, args, ConditionQueue::released),
            lock.lock());
    SignalledRelease answer = reply.value();
    return answer.release().released()
        ? answer
        : new SignalledRelease(Release.notOurs(reply.server()), List.of(), 0);
  }

  private <T> T run(
      String operation,
      LockKeys lock,
      ConditionKeys condition,
      String op,
      String id,
      String token,
      Function<Object, T> parser) {
    return new ScriptCall<>(
            operation,
            lock,
            Script.CONDITION,
            keys(lock, condition, Kind.PLAIN),
            args(op, id, token, condition, lock, Kind.PLAIN),
            parser)
        .call(client);
  }

  /**
   * The script's keys: the lock's, the condition's, and those beside the lock that a release of
   * {@code kind} reads.
   */
  private static List<String> keys(LockKeys lock, ConditionKeys condition, Kind kind) {
    List<String> keys = new ArrayList<>(7);
    keys.add(lock.lock());
    keys.add(condition.queue());
    keys.add(condition.leases());
    keys.add(condition.signalled());
    keys.add(lock.companion());
    keys.addAll(kind.keys(lock));
    return keys;
  }

  /**
   * The script's arguments, but for a release's count and hand-over: {@code kind} matters only to
   * the operations that release (for the others, which release nothing, it is {@code PLAIN}).
   */
  private List<String> args(
      String op, String id, String token, ConditionKeys condition, LockKeys lock, Kind kind) {
    return List.of(
        op,
        id,
        token,
        lease,
        ttl,
        condition.channel(),
        lock.channel(),
        publish,
        condition.sequence(),
        kind.argument);
  }

  private static Enqueued enqueued(Object reply) {
    List<?> values = (List<?>) reply;
    return switch ((int) number(values.get(0))) {
      case 1 ->
          new Enqueued(
              Release.released(number(values.get(2))), number(values.get(1)), false, false);
      case 2 -> new Enqueued(Release.RELEASED, number(values.get(1)), false, false);
      case 3 -> new Enqueued(Release.RELEASED, 0, true, false);
      case 4 -> new Enqueued(Release.RELEASED, 0, true, true);
      default -> new Enqueued(Release.NOT_OURS, 0, false, false);
    };
  }

  private static SignalledRelease released(Object reply) {
    List<?> values = (List<?>) reply;
    if (number(values.get(0)) != 1) {
      return new SignalledRelease(Release.NOT_OURS, List.of(), 0);
    }
    List<String> awaiters = new ArrayList<>(values.size() - 3);
    for (int i = 3; i < values.size(); i++) {
      awaiters.add(text(values.get(i)));
    }
    return new SignalledRelease(
        Release.released(number(values.get(1))), awaiters, number(values.get(2)));
  }

  private static Standing renewed(Object reply) {
    long status = number(reply);
    return switch ((int) status) {
      case 1 -> Standing.WAITING;
      case 2 -> Standing.SIGNALLED;
      case 3 -> Standing.HELD;
      default -> Standing.GONE;
    };
  }

  private static Standing left(Object reply) {
    long status = number(reply);
    return switch ((int) status) {
      case 0 -> Standing.LEFT;
      case 1 -> Standing.SIGNALLED;
      case 3 -> Standing.HELD;
      default -> Standing.GONE;
    };
  }

  private static Signalled signalled(Object reply) {
    List<?> values = (List<?>) reply;
    long status = number(values.get(0));
    if (status < 0) {
      return new Signalled(false, null, 0);
    }
    if (values.size() > 1 && !(values.get(1) instanceof Number)) {
      return new Signalled(true, text(values.get(1)), 0);
    }
    return new Signalled(true, null, values.size() > 1 ? number(values.get(1)) : 0);
  }

  private static long number(Object value) {
    return ((Number) value).longValue();
  }

  private static String text(Object value) {
    return value instanceof byte[] bytes
        ? new String(bytes, StandardCharsets.UTF_8)
        : value.toString();
  }

  /**
   * The same queues, on the same client, for holds and awaiters of {@code leaseMillis}; the first
   * contact's access check is this one's.
   *
   * @throws IllegalArgumentException unless {@code leaseMillis} is from 1 ms to one day
   */
  public ConditionQueue withLease(long leaseMillis) {
    return new ConditionQueue(client, direct, wire.withLease(leaseMillis), firstContact);
  }
}
