package io.github.redislock.internal.backend;

import io.github.redislock.internal.transport.Direct;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.csc.Cache;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.executors.CommandExecutor;

/**
 * For unit tests of the engine only (the integration tests run the real scripts on real Redis):
 * {@link ReadWriteOps} whose scripts are answered by an in-memory model instead of a Redis node.
 * The operations build their commands and parse their replies as they do on Redis; only {@code
 * EVALSHA} is answered by the model, which gets the script's file name (e.g. {@code rw_read.lua})
 * and its keys and arguments, and answers as the script would ({@code Long}s, or a {@code List} of
 * them).
 */
public final class FakeScripts {
  private FakeScripts() {}

  /** Runs one script call: what the script would answer for {@code keys} and {@code args}. */
  public interface Model {
    Object run(String script, List<String> keys, List<String> args);
  }

  /** Read-write operations, with holds of {@code leaseMillis}, whose scripts {@code model} runs. */
  public static ReadWriteOps readWriteOps(long leaseMillis, Model model) {
    UnifiedJedis client = new Client(model);
    return new ReadWriteOps(
        client,
        new ReadWriteCommands(WireArguments.of(leaseMillis, false)),
        new Direct(client),
        keys -> {});
  }

  /** A client that runs nothing on a server: every script it is asked to run goes to the model. */
  private static final class Client extends UnifiedJedis {
    private static final Map<String, String> NAMES_BY_SHA1 = new HashMap<>();

    static {
      for (Script script :
          List.of(
              Script.RW_WRITE,
              Script.RW_READ,
              Script.RW_READ_EXTEND,
              Script.RW_READ_RELEASE,
              Script.RW_LEAVE,
              Script.RW_READERS)) {
        NAMES_BY_SHA1.put(sha1(script), script.name());
      }
    }

    private final Model model;

    Client(Model model) {
      super(new NoServer(), null, (RedisProtocol) null, (Cache) null); // connects to nothing
      this.model = model;
    }

    /** Where a command other than the model's scripts would go: nowhere. */
    private static final class NoServer implements CommandExecutor {
      @Override
      public <T> T executeCommand(CommandObject<T> command) {
        throw new JedisConnectionException("a fake client sends nothing: " + command);
      }

      @Override
      public void close() {}
    }

    /** The script's SHA-1, as its {@code EVALSHA} command names it. */
    private static String sha1(Script script) {
      CommandArguments command = script.evalsha(List.of(), List.of());
      int i = 0;
      for (Rawable argument : command) {
        if (i++ == 1) {
          return new String(argument.getRaw(), StandardCharsets.UTF_8);
        }
      }
      throw new IllegalStateException("no SHA-1 in " + command);
    }

    @Override
    public Object evalsha(String sha1, List<String> keys, List<String> args) {
      String name = Objects.requireNonNull(NAMES_BY_SHA1.get(sha1), "not a read-write script");
      return model.run(name, keys, args);
    }
  }
}
