package io.github.redislock.internal;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Owner tokens: {@code "rl1:"} followed by 128 random bits from {@link SecureRandom}, in hex. The
 * generator is the JDK's DRBG (NIST SP 800-90A), seeded once from the operating system, so that a
 * token costs no system call.
 */
final class Tokens {
  /** Marks tokens written by this library; its holders publish on release (see acquire.lua). */
  static final String PREFIX = "rl1:";

  private static final SecureRandom RANDOM = create();
  private static final HexFormat HEX = HexFormat.of();

  private Tokens() {}

  private static SecureRandom create() {
    try {
      return SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      return new SecureRandom();
    }
  }

  static String next() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return PREFIX + HEX.formatHex(bytes);
  }
}
