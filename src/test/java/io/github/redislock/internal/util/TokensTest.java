package io.github.redislock.internal.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TokensTest {

  @Test
  void aTokenIsThePrefixAnd128BitsInLowercaseHex() {
    for (int i = 0; i < 100; i++) { // across the end of a block
      assertThat(Tokens.next()).matches("rl1:[0-9a-f]{32}");
    }
  }

  @Test
  void tokensAreDistinctAcrossThreadsAndBlocks() throws Exception {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> duplicates = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        duplicates.add(
            threads.submit(
                () -> {
                  int found = 0;
                  for (int i = 0; i < 25_000; i++) {
                    if (!seen.add(Tokens.next())) {
                      found++;
                    }
                  }
                  return found;
                }));
      }
      for (Future<Integer> found : duplicates) {
        assertThat(found.get(1, TimeUnit.MINUTES)).isZero();
      }
      assertThat(seen).hasSize(100_000);
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void everyHexDigitOccursInEveryPosition() {
    // Catches a spelling bug (a digit never produced, a position stuck): 2,000 tokens give each
    // of the 16 digits at each of the 32 positions about 125 chances.
    boolean[][] seen = new boolean[32][16];
    for (int i = 0; i < 2_000; i++) {
      String hex = Tokens.next().substring(Tokens.PREFIX.length());
      for (int p = 0; p < 32; p++) {
        seen[p][Character.digit(hex.charAt(p), 16)] = true;
      }
    }
    for (boolean[] position : seen) {
      for (boolean digit : position) {
        assertThat(digit).isTrue();
      }
    }
  }
}
