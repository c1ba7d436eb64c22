package io.github.redislock.internal.util;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Owner tokens: {@code "rl1:"} followed by 128 random bits from {@link SecureRandom}, in hex. The
 * generator is the JDK's DRBG (NIST SP 800-90A), seeded once from the operating system, so that a
 * token costs no system call.
 *
 * <p>Each thread draws its random bits in blocks of {@value #TOKENS_PER_BLOCK} tokens: one DRBG
 * request for a block costs about what one request for a single token did (the generator hashes its
 * state around every request), so a token costs a fraction of it. Every token is still distinct
 * output of the generator, used once.
 */
public final class Tokens {
  /** Marks tokens written by this library; its holders publish on release (see acquire.lua). */
  public static final String PREFIX = "rl1:";

  private static final int TOKEN_BYTES = 16;
  private static final int TOKENS_PER_BLOCK = 32;
  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = create();
  private static final ThreadLocal<Block> BLOCKS = ThreadLocal.withInitial(Block::new);

  private Tokens() {}

  private static SecureRandom create() {
    try {
      return SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      return new SecureRandom();
    }
  }

  public static String next() {
    return BLOCKS.get().next();
  }

  /** One thread's unused random bits, and a buffer to spell a token in. */
  private static final class Block {
    private final byte[] random = new byte[TOKEN_BYTES * TOKENS_PER_BLOCK];
    private final byte[] text = new byte[PREFIX.length() + 2 * TOKEN_BYTES];
    private int used = random.length;

    Block() {
      byte[] prefix = PREFIX.getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(prefix, 0, text, 0, prefix.length);
    }

    String next() {
      if (used == random.length) {
        RANDOM.nextBytes(random);
        used = 0;
      }
      int at = PREFIX.length();
      for (int i = used; i < used + TOKEN_BYTES; i++) {
        text[at++] = HEX_DIGITS[(random[i] >> 4) & 0xf];
        text[at++] = HEX_DIGITS[random[i] & 0xf];
        random[i] = 0; // used once
      }
      used += TOKEN_BYTES;
      return new String(text, StandardCharsets.US_ASCII);
    }
  }
}
