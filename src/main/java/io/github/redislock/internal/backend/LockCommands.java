package io.github.redislock.internal.backend;

import io.github.redislock.RedisLockException;
import io.github.redislock.internal.transport.Direct;
import io.github.redislock.internal.transport.Request;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * Every command the lock sends to one Redis node, built for one lease: for each operation, the keys
 * and arguments of its script (or the plain command) and the parser of its reply. Each operation is
 * a {@link Request}, which a single-node backend {@linkplain Request#call calls} on its client and
 * Redlock hands to a transport for every master; so both speak the same words, and the scripts'
 * KEYS and ARGV (see their header comments) are spelled out here only.
 */
final class LockCommands {
  /** A plain {@code SET NX}'s refusal: busy, for how long unknown. */
  static final Acquisition BUSY_FOR_ALL_WE_KNOW = Acquisition.busy(0, false);

  private final long leaseMillis;
  private final String lease;
  private final String companionTtl;

  /** How a release publishes its wake-up: {@code spublish} (sharded) or {@code publish}. */
  private final String publish;

  /** How waiters subscribe and unsubscribe: sharded, as releases publish, or not. */
  private final String subscribe;

  private final String unsubscribe;

  /** The plain acquisition's {@code NX PX lease}, built once. */
  private final SetParams plainSet;

  /** The commands for holds of {@code wire}'s lease, publishing as {@code wire} says. */
  LockCommands(WireArguments wire) {
    this.publish = wire.publish();
    this.subscribe = wire.subscribe();
    this.unsubscribe = wire.unsubscribe();
    this.leaseMillis = wire.leaseMillis();
    this.lease = wire.lease();
    this.companionTtl = wire.companionTtl();
    this.plainSet = SetParams.setParams().nx().px(leaseMillis);
  }

  /** The lease every acquisition and renewal sets. */
  long leaseMillis() {
    return leaseMillis;
  }

  /**
   * {@code SET lock token NX PX lease}: the cheapest acquisition, which cannot tell how long a busy
   * lock stays busy ({@link #BUSY_FOR_ALL_WE_KNOW}), nor issue a fencing token.
   */
  Request<Acquisition> plainAcquire(LockKeys keys, String token) {
    return new PlainSet(keys, token);
  }

  /**
   * The acquire script: takes a free lock (or one an earlier attempt with {@code token} took, whose
   * reply was lost), or tells how long the holder's lease lasts. With {@code fenced}, it also
   * issues the hold's fencing token from the companion hash.
   */
  Request<Acquisition> acquire(LockKeys keys, String token, boolean fenced) {
    return fenced
        ? new ScriptCall<>(
            "acquire",
            keys,
            Script.ACQUIRE,
            List.of(keys.lock(), keys.companion()),
            List.of(token, lease, companionTtl),
            LockCommands::acquisition)
        : new ScriptCall<>(
            "acquire",
            keys,
            Script.ACQUIRE,
            List.of(keys.lock()),
            List.of(token, lease),
            LockCommands::acquisition);
  }

  /** The extend script: renews the lease; {@code false} when the key no longer holds the token. */
  Request<Boolean> extend(LockKeys keys, String token) {
    return new ScriptCall<>(
        "renew",
        keys,
        Script.EXTEND,
        List.of(keys.lock(), keys.companion()),
        List.of(token, lease, companionTtl),
        LockCommands::isOne);
  }

  /**
   * The release script: deletes the key if it holds {@code token} and publishes on the lock's
   * channel (sharded, where these commands were built so); where it releases, it also raises the
   * node's fencing counter to {@code fencingToken} (0 raises nothing: the node issued the token
   * itself, so its counter is there already).
   */
  Request<Release> release(LockKeys keys, String token, long fencingToken) {
    return fencingToken == 0
        ? new ScriptCall<>(
            "release",
            keys,
            Script.RELEASE,
            List.of(keys.lock()),
            List.of(token, keys.channel(), publish),
            LockCommands::release,
            Release::released)
        : new ScriptCall<>(
            "release",
            keys,
            Script.RELEASE,
            List.of(keys.lock(), keys.companion()),
            List.of(token, keys.channel(), publish, Long.toString(fencingToken), companionTtl),
            LockCommands::release,
            Release::released);
  }

  /**
   * The refence script: a new fencing token for a hold that is still {@code token}'s, from the
   * node's counter; -1 when it is not.
   */
  Request<Long> reissueFence(LockKeys keys, String token) {
    return new ScriptCall<>(
        "fence",
        keys,
        Script.REFENCE,
        List.of(keys.lock(), keys.companion()),
        List.of(token, companionTtl),
        LockCommands::fence);
  }

  /**
   * The fence script: raises the node's fencing counter to at least {@code fencingToken} where the
   * key still holds {@code token}; {@code false}, writing nothing, where it does not.
   */
  Request<Boolean> raiseFence(LockKeys keys, String token, long fencingToken) {
    return new ScriptCall<>(
        "fence",
        keys,
        Script.FENCE,
        List.of(keys.lock(), keys.companion()),
        List.of(token, Long.toString(fencingToken), companionTtl),
        LockCommands::isOne);
  }

  /**
   * The access script: the commands the Redis user may not run on this lock's keys and channel, of
   * those the lock sends; empty when it may run them all (or the server cannot tell: before Redis
   * 7).
   */
  Request<List<String>> checkAccess(LockKeys keys) {
    return checkAccess(keys, "lock");
  }

  /**
   * As {@link #checkAccess(LockKeys)}, adding the commands that the scripts of {@code kind} run:
   * {@code "lock"} (none), {@code "fair"}, {@code "rw"} or {@code "cond"}.
   */
  Request<List<String>> checkAccess(LockKeys keys, String kind) {
    return new ScriptCall<>(
        "check the access rights for",
        keys,
        Script.ACCESS,
        List.of(keys.lock(), keys.companion()),
        List.of(keys.channel(), publish, subscribe, unsubscribe, kind),
        LockCommands::denied);
  }

  /** {@code EXISTS lock}: whether anyone holds the lock. */
  Request<Boolean> isLocked(LockKeys keys) {
    return new Exists(keys);
  }

  /** The acquire script's reply: {@code 1}, {@code {1, token}} or {@code {0, pttl, ourFormat}}. */
  static Acquisition acquisition(Object reply) {
    if (reply instanceof Long) {
      return Acquisition.ACQUIRED_UNFENCED;
    }
    List<?> values = (List<?>) reply;
    if (asLong(values.get(0)) == 1) {
      return Acquisition.acquired(asLong(values.get(1)));
    }
    return Acquisition.busy(asLong(values.get(1)), asLong(values.get(2)) == 1);
  }

  /** The release script's reply: 0 (not ours) or 1 + the channel's subscribers. */
  static Release release(Object reply) {
    long status = asLong(reply);
    return status == 0 ? Release.NOT_OURS : Release.released(status - 1);
  }

  /** The access script's reply: the denied commands, as text. */
  static List<String> denied(Object reply) {
    List<String> denied = new ArrayList<>();
    for (Object command : (List<?>) reply) {
      denied.add(
          command instanceof byte[] bytes
              ? new String(bytes, StandardCharsets.UTF_8)
              : String.valueOf(command));
    }
    return denied;
  }

  private static Boolean isOne(Object reply) {
    return asLong(reply) == 1;
  }

  private static Long fence(Object reply) {
    return asLong(reply);
  }

  private static long asLong(Object value) {
    return ((Number) value).longValue();
  }

  /** A reply, shortly, for an error message: its type and the start of its content. */
  static String describe(Object reply) {
    if (reply == null) {
      return "nil";
    }
    if (reply instanceof byte[] bytes) {
      return "bulk string \"" + shorten(new String(bytes, StandardCharsets.UTF_8)) + "\"";
    }
    if (reply instanceof List<?> list) {
      List<String> items = new ArrayList<>();
      for (Object item : list.subList(0, Math.min(list.size(), 5))) {
        items.add(describe(item));
      }
      return "array of " + list.size() + " " + items + (list.size() > 5 ? "..." : "");
    }
    if (reply instanceof Number number) {
      return "integer " + number;
    }
    return reply.getClass().getSimpleName() + " \"" + shorten(reply.toString()) + "\"";
  }

  private static String shorten(String text) {
    return text.length() > 40 ? text.substring(0, 40) + "..." : text;
  }

  /**
   * One operation on one lock. A client's failure becomes a {@link RedisLockException} naming the
   * operation and the lock key.
   */
  private abstract static class LockCommand<T> implements Request<T> {
    private final String operation;
    final LockKeys keys;

    LockCommand(String operation, LockKeys keys) {
      this.operation = operation;
      this.keys = keys;
    }

    /** Runs on {@code client} through its own API; its failures are wrapped by {@link #call}. */
    abstract T run(UnifiedJedis client);

    /** What a reply means, assuming the shape the command or script gives. */
    abstract T parseReply(Object reply);

    @Override
    public final T call(UnifiedJedis client) {
      try {
        return run(client);
      } catch (JedisException e) {
        throw failure(e);
      }
    }

    /**
     * What a reply means. A reply of another shape (a client out of step with its connection, or a
     * script of another version under the same name) fails with a {@link RedisLockException} naming
     * the operation, the lock key and the reply, rather than with the cast that met it.
     */
    @Override
    public final T parse(Object reply) {
      try {
        return parseReply(reply);
      } catch (ClassCastException
          | IndexOutOfBoundsException
          | NullPointerException
          | NumberFormatException e) {
        throw new RedisLockException(
            "Redis answered "
                + operation
                + " of lock key '"
                + keys.lock()
                + "' with an unexpected reply: "
                + describe(reply),
            e);
      }
    }

    @Override
    public final RedisLockException failure(JedisException e) {
      restoreInterrupt(e);
      return new RedisLockException(
          "Redis failed to " + operation + " lock key '" + keys.lock() + "': " + e.getMessage(), e);
    }

    /**
     * Jedis's cluster client sleeps between retries and wraps an interrupt of that sleep without
     * restoring the flag: restore it, so that the engine sees the interrupt.
     */
    private static void restoreInterrupt(Throwable failure) {
      for (Throwable t = failure; t != null; t = t.getCause()) {
        if (t instanceof InterruptedException) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** A script with its keys and arguments, run by {@code EVALSHA}. */
  static final class ScriptCall<T> extends LockCommand<T> {
    private final Script script;
    private final List<String> scriptKeys;
    private final List<String> args;

    /** A non-capturing method reference, so no object is made per call. */
    private final Function<Object, T> parser;

    /** Which replies prove the effect (see {@link Request#provesEffect}), or {@code null}: none. */
    private final Predicate<? super T> proof;

    ScriptCall(
        String operation,
        LockKeys keys,
        Script script,
        List<String> scriptKeys,
        List<String> args,
        Function<Object, T> parser) {
      this(operation, keys, script, scriptKeys, args, parser, null);
    }

    ScriptCall(
        String operation,
        LockKeys keys,
        Script script,
        List<String> scriptKeys,
        List<String> args,
        Function<Object, T> parser,
        Predicate<? super T> proof) {
      super(operation, keys);
      this.script = script;
      this.scriptKeys = scriptKeys;
      this.args = args;
      this.parser = parser;
      this.proof = proof;
    }

    @Override
    public boolean provesEffect(T reply) {
      return proof != null && proof.test(reply);
    }

    @Override
    public CommandArguments command() {
      return script.evalsha(scriptKeys, args);
    }

    @Override
    public CommandArguments commandWithSource() {
      return script.eval(scriptKeys, args);
    }

    @Override
    T parseReply(Object reply) {
      return parser.apply(reply);
    }

    @Override
    T run(UnifiedJedis client) {
      return parse(script.run(client, scriptKeys, args));
    }

    /**
     * Sends the script at most once, to the node that serves the lock's key (see {@link Direct}).
     */
    T sendOnce(Direct direct) {
      return direct.send(this, keys.lock()).value();
    }
  }

  /** {@code SET lock token NX PX lease}. */
  private final class PlainSet extends LockCommand<Acquisition> {
    private final String token;

    PlainSet(LockKeys keys, String token) {
      super("acquire", keys);
      this.token = token;
    }

    @Override
    public CommandArguments command() {
      return new CommandArguments(Protocol.Command.SET)
          .key(keys.lock())
          .add(token)
          .add(Protocol.Keyword.NX)
          .add(Protocol.Keyword.PX)
          .add(leaseMillis);
    }

    @Override
    Acquisition parseReply(Object reply) {
      return reply != null ? Acquisition.ACQUIRED_UNFENCED : BUSY_FOR_ALL_WE_KNOW;
    }

    @Override
    Acquisition run(UnifiedJedis client) {
      return parse(client.set(keys.lock(), token, plainSet));
    }
  }

  /** {@code EXISTS lock}. */
  private static final class Exists extends LockCommand<Boolean> {
    Exists(LockKeys keys) {
      super("inspect", keys);
    }

    @Override
    public CommandArguments command() {
      return new CommandArguments(Protocol.Command.EXISTS).key(keys.lock());
    }

    @Override
    Boolean parseReply(Object reply) {
      return asLong(reply) > 0;
    }

    @Override
    Boolean run(UnifiedJedis client) {
      return client.exists(keys.lock());
    }
  }
}
