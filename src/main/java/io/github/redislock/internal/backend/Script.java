package io.github.redislock.internal.backend;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A Lua script kept as a {@code .lua} resource beside this class. It runs by {@code EVALSHA}; when
 * the server answers {@code NOSCRIPT} (a restart, a failover, a {@code SCRIPT FLUSH}) it runs once
 * by {@code EVAL}, which also caches it again on that server.
 */
final class Script {
  /** Every script, in the order loaded; before the constants, which add themselves. */
  private static final List<Script> ALL = new ArrayList<>();

  static final Script ACQUIRE = load("acquire.lua");
  static final Script RELEASE = load("release.lua");
  static final Script EXTEND = load("extend.lua");
  static final Script FENCE = load("fence.lua");
  static final Script REFENCE = load("refence.lua");
  static final Script ACCESS = load("access.lua");
  static final Script FAIR_ACQUIRE = load("fair_acquire.lua");
  static final Script FAIR_LEAVE = load("fair_leave.lua");
  static final Script FAIR_RELEASE = load("fair_release.lua");
  static final Script RW_WRITE = load("rw_write.lua");
  static final Script RW_READ = load("rw_read.lua");
  static final Script RW_READ_EXTEND = load("rw_read_extend.lua");
  static final Script RW_READ_RELEASE = load("rw_read_release.lua");
  static final Script RW_LEAVE = load("rw_leave.lua");
  static final Script RW_READERS = load("rw_readers.lua");
  static final Script CONDITION = load("condition.lua");
  static final Script INSPECT = load("inspect.lua");
  static final Script FORCE_UNLOCK = load("force_unlock.lua");
  static final Script DESCRIBE = load("describe.lua");

  private final String name;
  private final String source;
  private final String sha1;

  private Script(String name, String source) {
    this.name = name;
    this.source = source;
    this.sha1 = sha1(source);
  }

  /** Runs this script on {@code client}, loading it again where the server has forgotten it. */
  Object run(UnifiedJedis client, List<String> keys, List<String> args) {
    try {
      return client.evalsha(sha1, keys, args);
    } catch (JedisNoScriptException e) {
      return client.eval(source, keys, args);
    }
  }

  /** The resource's file name, e.g. {@code acquire.lua}. */
  String name() {
    return name;
  }

  /**
   * {@code SCRIPT LOAD} of every script, for a connection to run before its first {@code EVALSHA}.
   */
  static List<CommandArguments> loadAll() {
    List<CommandArguments> commands = new ArrayList<>(ALL.size());
    for (Script script : ALL) {
      commands.add(
          new CommandArguments(Protocol.Command.SCRIPT)
              .add(Protocol.Keyword.LOAD)
              .add(script.source));
    }
    return commands;
  }

  /** The {@code EVALSHA} command for this script, for callers that send it themselves. */
  CommandArguments evalsha(List<String> keys, List<String> args) {
    CommandArguments command =
        new CommandArguments(Protocol.Command.EVALSHA).add(sha1).add(keys.size());
    keys.forEach(command::key);
    args.forEach(command::add);
    return command;
  }

  /** The {@code EVAL} command for this script: for a server that answered {@code NOSCRIPT}. */
  CommandArguments eval(List<String> keys, List<String> args) {
    CommandArguments command =
        new CommandArguments(Protocol.Command.EVAL).add(source).add(keys.size());
    keys.forEach(command::key);
    args.forEach(command::add);
    return command;
  }

  private static Script load(String resource) {
    try (InputStream in = Script.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing script resource " + resource);
      }
      Script script = new Script(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      ALL.add(script);
      return script;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script resource " + resource, e);
    }
  }

  private static String sha1(String source) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(digest.digest(source.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every Java platform", e);
    }
  }
}
