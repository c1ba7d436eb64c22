package io.github.redislock.testing;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One fault for {@link RespProxy} to inject: which commands it aims at, which of them it hits, and
 * what it does to the command or its reply.
 *
 * <pre>{@code
 * proxy.inject(Fault.onScript("release.lua").after(2).delayReply(Duration.ofMillis(400)));
 * proxy.inject(Fault.onAnyCommand().ofClients("redis-lock").times(3)
 *     .pushBeforeReply(Fault.invalidation("orders")));
 * proxy.inject(Fault.onCommand("SET").loseReply()); // SET runs, its reply is lost in a reset
 * }</pre>
 *
 * <p>A command matches when its name (or the library's script it runs), its connection's client
 * name and protocol fit. The first {@link #after} matches pass, then the next {@link #times}
 * matches are hit (one by default; {@link #always()} for every one), counted over every connection
 * of every proxy the fault is injected into, or per connection ({@link #perConnection()}). A fault
 * is stateful: inject a fresh one for each run. It hits nothing on connections of Redis's own
 * machinery that the proxy passes through as bytes (replication), and no reply on a connection that
 * subscribed (whose replies are not matched to commands). Push frames go only to RESP3 connections.
 * Every hit is recorded ({@link #hits()}) for failure messages. Thread-safe.
 */
public final class Fault {

  /** What a fault does. */
  public enum Action {
    /** The reply is held back for a while (and every reply after it on that connection). */
    DELAY_REPLY(true),
    /**
     * The command is held back for a while before it reaches the server (and every command after it
     * on that connection): it runs late.
     */
    DELAY_COMMAND(false),
    /** The reply is sent in pieces of a few bytes, each flushed on its own. */
    SPLIT_REPLY(true),
    /** A push frame goes to the client just before the reply. */
    PUSH_BEFORE_REPLY(true),
    /** A push frame goes to the client just after the reply. */
    PUSH_AFTER_REPLY(true),
    /** The command runs; its reply is dropped and the connection reset (both sides). */
    LOSE_REPLY(true),
    /** The command is dropped (it never runs) and the connection reset (both sides). */
    RESET_BEFORE_COMMAND(false),
    /**
     * The command runs; its reply and everything after, both ways, is dropped, and the server's
     * side closed, while the client's side stays open and silent: a partition the client cannot
     * notice but by a timeout.
     */
    BLACK_HOLE_AFTER_COMMAND(true),
    /** As {@link #BLACK_HOLE_AFTER_COMMAND}, but the command is dropped too: it never runs. */
    BLACK_HOLE_BEFORE_COMMAND(false);

    private final boolean onReply;

    Action(boolean onReply) {
      this.onReply = onReply;
    }

    /** Whether the action needs the command's reply (so only commands whose reply is known). */
    boolean onReply() {
      return onReply;
    }
  }

  private static final Set<String> SUBSCRIBING =
      Set.of(
          "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE");

  private final String target;
  private final Predicate<RespCommand> command;

  // Settings, fixed before the fault is injected; guarded by this.
  private String clientPrefix;
  private int skip;
  private int times = 1;
  private boolean perConnection;
  private Action action;
  private Duration delay = Duration.ZERO;
  private int pieceSize = 1;
  private byte[] push;

  // State; guarded by this.
  private final Map<Object, int[]> counts = new HashMap<>(); // scope -> {matches, hits}
  private final List<String> hits = new ArrayList<>();

  private Fault(String target, Predicate<RespCommand> command) {
    this.target = target;
    this.command = command;
  }

  /**
   * A fault aimed at commands of the given names ({@code "SET"}, {@code "EVALSHA"}, ...).
   *
   * @param names command names, in any case
   * @return the fault, with no action yet
   */
  public static Fault onCommand(String... names) {
    Set<String> upper = new java.util.HashSet<>();
    for (String name : names) {
      upper.add(name.toUpperCase(Locale.ROOT));
    }
    return new Fault(String.join("|", upper), c -> upper.contains(c.name()));
  }

  /**
   * A fault aimed at the commands that run one of the library's scripts: its {@code EVALSHA}, or
   * its {@code EVAL} after a {@code NOSCRIPT}.
   *
   * @param file the script's file name, e.g. {@code "release.lua"}
   * @return the fault, with no action yet
   * @throws IllegalArgumentException if the library has no such script
   */
  public static Fault onScript(String file) {
    String sha = LibraryScripts.sha(file);
    return new Fault(file, c -> sha.equals(c.scriptSha()));
  }

  /**
   * A fault aimed at the commands of a {@linkplain RespProxy#commandsSeen label} that a proxy
   * reported: {@code "SET"}, or {@code "EVALSHA release.lua"} (a script's {@code EVALSHA} or {@code
   * EVAL}).
   *
   * @param label the label
   * @return the fault, with no action yet
   */
  public static Fault on(String label) {
    int space = label.indexOf(' ');
    if (space > 0 && label.endsWith(".lua")) {
      return onScript(label.substring(space + 1));
    }
    return onCommand(label);
  }

  /**
   * A fault aimed at every command.
   *
   * @return the fault, with no action yet
   */
  public static Fault onAnyCommand() {
    return new Fault("any command", c -> true);
  }

  /**
   * Aims only at connections whose client name (set by {@code HELLO ... SETNAME} or {@code CLIENT
   * SETNAME}) starts with {@code prefix}: the library names its connections {@code redis-lock}; a
   * Sentinel names its own {@code sentinel-...}.
   *
   * @param prefix the start of the client name
   * @return this fault
   */
  public synchronized Fault ofClients(String prefix) {
    this.clientPrefix = Objects.requireNonNull(prefix, "prefix");
    return this;
  }

  /**
   * Lets the first {@code matches} matching commands pass before the fault hits.
   *
   * @param matches how many pass, at least 0
   * @return this fault
   */
  public synchronized Fault after(int matches) {
    if (matches < 0) {
      throw new IllegalArgumentException("negative: " + matches);
    }
    this.skip = matches;
    return this;
  }

  /**
   * Hits the next {@code hits} matching commands (after those {@link #after} lets pass), then none.
   * Default 1.
   *
   * @param hits at least 1
   * @return this fault
   */
  public synchronized Fault times(int hits) {
    if (hits < 1) {
      throw new IllegalArgumentException("at least one hit: " + hits);
    }
    this.times = hits;
    return this;
  }

  /**
   * Hits every matching command (after those {@link #after} lets pass).
   *
   * @return this fault
   */
  public synchronized Fault always() {
    this.times = Integer.MAX_VALUE;
    return this;
  }

  /**
   * Counts matches and hits per connection rather than over all of them: {@code after(2)} then hits
   * the third matching command of every connection.
   *
   * @return this fault
   */
  public synchronized Fault perConnection() {
    this.perConnection = true;
    return this;
  }

  /**
   * Holds each hit reply back for {@code delay} (and, as TCP would, the replies after it on the
   * same connection).
   *
   * @param delay how long
   * @return this fault
   */
  public Fault delayReply(Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative delay: " + delay);
    }
    synchronized (this) {
      this.delay = delay;
    }
    return act(Action.DELAY_REPLY);
  }

  /**
   * Holds each hit command back for {@code delay} before it reaches the server (and, as TCP would,
   * the commands after it on the same connection): a request that arrives late, after its sender
   * may have given up.
   *
   * @param delay how long
   * @return this fault
   */
  public Fault delayCommand(Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative delay: " + delay);
    }
    synchronized (this) {
      this.delay = delay;
    }
    return act(Action.DELAY_COMMAND);
  }

  /**
   * Sends each hit reply in pieces of {@code bytes} bytes, each flushed on its own about a
   * millisecond after the one before.
   *
   * @param bytes the size of a piece, at least 1
   * @return this fault
   */
  public Fault splitReply(int bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("at least one byte a piece: " + bytes);
    }
    synchronized (this) {
      this.pieceSize = bytes;
    }
    return act(Action.SPLIT_REPLY);
  }

  /**
   * Sends the push frame {@code frame} (see {@link #invalidation}) just before each hit reply. Only
   * RESP3 connections are hit.
   *
   * @param frame a RESP3 push frame
   * @return this fault
   */
  public Fault pushBeforeReply(byte[] frame) {
    setPush(frame);
    return act(Action.PUSH_BEFORE_REPLY);
  }

  /**
   * Sends the push frame {@code frame} just after each hit reply, so that it waits in the client's
   * buffer for the next read. Only RESP3 connections are hit.
   *
   * @param frame a RESP3 push frame
   * @return this fault
   */
  public Fault pushAfterReply(byte[] frame) {
    setPush(frame);
    return act(Action.PUSH_AFTER_REPLY);
  }

  /**
   * Lets each hit command run, then drops its reply and resets the connection: the client cannot
   * tell whether it ran.
   *
   * @return this fault
   */
  public Fault loseReply() {
    return act(Action.LOSE_REPLY);
  }

  /**
   * Drops each hit command (it never runs) and resets the connection.
   *
   * @return this fault
   */
  public Fault resetBeforeCommand() {
    return act(Action.RESET_BEFORE_COMMAND);
  }

  /**
   * Lets each hit command run, then black-holes its connection: the reply and every byte after it,
   * both ways, are dropped, the server's side is closed, and the client's side stays open.
   *
   * @return this fault
   */
  public Fault blackHoleAfterCommand() {
    return act(Action.BLACK_HOLE_AFTER_COMMAND);
  }

  /**
   * Black-holes the connection of each hit command, the command included: it never runs.
   *
   * @return this fault
   */
  public Fault blackHoleBeforeCommand() {
    return act(Action.BLACK_HOLE_BEFORE_COMMAND);
  }

  /**
   * A RESP3 push frame telling a tracking client that {@code keys} changed, as Redis sends it:
   * {@code >2 $10 invalidate *N $.. key ...}.
   *
   * @param keys the keys named
   * @return the frame's bytes
   */
  public static byte[] invalidation(String... keys) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    header(out, '>', 2);
    bulk(out, "invalidate");
    header(out, '*', keys.length);
    for (String key : keys) {
      bulk(out, key);
    }
    return out.toByteArray();
  }

  /**
   * A RESP3 push frame of bulk strings, such as {@code push("message", "channel", "payload")}.
   *
   * @param parts the frame's elements, the push's kind first
   * @return the frame's bytes
   */
  public static byte[] push(String... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    header(out, '>', parts.length);
    for (String part : parts) {
      bulk(out, part);
    }
    return out.toByteArray();
  }

  /**
   * How many commands the fault hit so far.
   *
   * @return the count
   */
  public synchronized int hitCount() {
    return hits.size();
  }

  /**
   * What the fault hit so far, one line per hit: proxy, connection, client name, command.
   *
   * @return the hits, in order
   */
  public synchronized List<String> hits() {
    return List.copyOf(hits);
  }

  /**
   * The action, for whoever applies it.
   *
   * @return the action
   */
  public synchronized Action action() {
    return action;
  }

  synchronized Duration delay() {
    return delay;
  }

  synchronized int pieceSize() {
    return pieceSize;
  }

  synchronized byte[] pushFrame() {
    return push;
  }

  /** Checks that the fault can be injected. */
  synchronized void checkComplete() {
    if (action == null) {
      throw new IllegalStateException("a fault without an action: " + this);
    }
  }

  /**
   * Whether this fault hits {@code c}, sent on connection {@code connection} of {@code proxy}; a
   * hit is counted and recorded.
   */
  synchronized boolean hits(
      RespCommand c,
      String proxy,
      int connection,
      String clientName,
      boolean resp3,
      boolean subscribed) {
    if (action.onReply() && (subscribed || SUBSCRIBING.contains(c.name()))) {
      return false; // its reply cannot be told from the pushes
    }
    if ((action == Action.PUSH_BEFORE_REPLY || action == Action.PUSH_AFTER_REPLY) && !resp3) {
      return false;
    }
    if (clientPrefix != null && (clientName == null || !clientName.startsWith(clientPrefix))) {
      return false;
    }
    if (!command.test(c)) {
      return false;
    }
    Object scope = perConnection ? proxy + "#" + connection : "all";
    int[] count = counts.computeIfAbsent(scope, k -> new int[2]);
    count[0]++;
    if (count[0] <= skip || count[1] >= times) {
      return false;
    }
    count[1]++;
    hits.add(
        proxy
            + " c"
            + connection
            + (clientName == null ? "" : " '" + clientName + "'")
            + (resp3 ? " RESP3" : " RESP2")
            + ": "
            + describeAction()
            + " at "
            + c.describe());
    return true;
  }

  @Override
  public synchronized String toString() {
    return "Fault[" + describeAction() + " on " + target + describeScope() + "]";
  }

  private String describeAction() {
    if (action == null) {
      return "nothing";
    }
    return switch (action) {
      case DELAY_REPLY -> "reply delayed " + delay.toMillis() + " ms";
      case DELAY_COMMAND -> "command delayed " + delay.toMillis() + " ms";
      case SPLIT_REPLY -> "reply split in " + pieceSize + "-byte pieces";
      case PUSH_BEFORE_REPLY -> "push frame before the reply";
      case PUSH_AFTER_REPLY -> "push frame after the reply";
      case LOSE_REPLY -> "ran, reply lost in a reset";
      case RESET_BEFORE_COMMAND -> "reset before the command";
      case BLACK_HOLE_AFTER_COMMAND -> "ran, then black hole";
      case BLACK_HOLE_BEFORE_COMMAND -> "black hole before the command";
    };
  }

  private String describeScope() {
    return (clientPrefix == null ? "" : " of clients " + clientPrefix + "*")
        + (skip == 0 ? "" : " after " + skip)
        + (times == Integer.MAX_VALUE ? ", always" : times == 1 ? "" : ", " + times + " times")
        + (perConnection ? " per connection" : "");
  }

  private synchronized void setPush(byte[] frame) {
    if (frame.length == 0 || frame[0] != '>') {
      throw new IllegalArgumentException("not a push frame");
    }
    this.push = frame.clone();
  }

  private synchronized Fault act(Action what) {
    if (action != null) {
      throw new IllegalStateException("the fault already " + describeAction());
    }
    this.action = what;
    return this;
  }

  private static void header(ByteArrayOutputStream out, char type, int count) {
    out.writeBytes((type + Integer.toString(count) + "\r\n").getBytes(StandardCharsets.US_ASCII));
  }

  private static void bulk(ByteArrayOutputStream out, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    out.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(bytes);
    out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
  }
}
