package io.github.redislock.testing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * One command a client sent, as {@link RespReader} read it: its arguments and its bytes.
 *
 * @param args the arguments, the command's name first
 * @param bytes the command as sent
 */
record RespCommand(List<byte[]> args, byte[] bytes) {
  private static final int SHOWN_ARGUMENT = 48;

  /** The command's name in upper case, or an empty string for an empty command. */
  String name() {
    return args.isEmpty() ? "" : text(0).toUpperCase(Locale.ROOT);
  }

  /** Argument {@code i} (0 is the name) as UTF-8 text, or null when there is none. */
  String text(int i) {
    return i < args.size() ? new String(args.get(i), StandardCharsets.UTF_8) : null;
  }

  /** Whether argument {@code i} is {@code value}, ignoring case. */
  boolean argumentIs(int i, String value) {
    String text = text(i);
    return text != null && text.equalsIgnoreCase(value);
  }

  /** Whether one of the arguments after the name is {@code value}, ignoring case. */
  boolean hasArgument(String value) {
    for (int i = 1; i < args.size(); i++) {
      if (argumentIs(i, value)) {
        return true;
      }
    }
    return false;
  }

  /** The SHA-1 of the script the command runs ({@code EVALSHA}, {@code EVAL}), or null. */
  String scriptSha() {
    return switch (name()) {
      case "EVALSHA", "EVALSHA_RO" -> args.size() > 1 ? text(1).toLowerCase(Locale.ROOT) : null;
      case "EVAL", "EVAL_RO" -> args.size() > 1 ? LibraryScripts.sha1(args.get(1)) : null;
      default -> null;
    };
  }

  /**
   * What kind of command this is, without its keys: its name, and for a script of the library, the
   * script's file name ({@code "EVALSHA release.lua"}); {@link Fault#on(String)} aims at it.
   */
  String label() {
    String sha = scriptSha();
    return sha == null ? name() : name() + " " + LibraryScripts.nameOf(sha);
  }

  /**
   * The command for messages: its name, the library's script it runs, and its first key (or first
   * argument), shortened.
   */
  String describe() {
    String sha = scriptSha();
    if (sha != null) {
      String key = args.size() > 3 && !"0".equals(text(2)) ? " " + shorten(text(3)) : "";
      return name() + " " + LibraryScripts.nameOf(sha) + key;
    }
    return args.size() > 1 ? name() + " " + shorten(text(1)) : name();
  }

  private static String shorten(String s) {
    return s.length() <= SHOWN_ARGUMENT ? s : s.substring(0, SHOWN_ARGUMENT) + "...";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RespCommand c && java.util.Arrays.equals(c.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "RespCommand[" + describe() + "]";
  }
}
