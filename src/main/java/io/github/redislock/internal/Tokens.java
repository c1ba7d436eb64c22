package io.github.redislock.internal;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Owner tokens: {@code "rl1:"} followed by 128 random bits from {@link SecureRandom}, in hex. */
final class Tokens {
  /** Marks tokens written by this library; its holders publish on release (see acquire.lua). */
  static final String PREFIX = "rl1:";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  private Tokens() {}

  static String next() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return PREFIX + HEX.formatHex(bytes);
  }
}
