package io.github.redislock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.LockStatsListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class CompositeLockStatsListenerTest {
  @Test
  void everyListenerIsToldInOrderEvenAfterOneThrew() {
    List<String> told = new CopyOnWriteArrayList<>();
    LockStatsListener failing =
        new LockStatsListener() {
          @Override
          public void renewed(String lockName) {
            told.add("failing " + lockName);
            throw new IllegalStateException("first");
          }
        };
    LockStatsListener alsoFailing =
        new LockStatsListener() {
          @Override
          public void renewed(String lockName) {
            told.add("also " + lockName);
            throw new IllegalArgumentException("second");
          }
        };
    LockStatsListener counting =
        new LockStatsListener() {
          @Override
          public void renewed(String lockName) {
            told.add("counting " + lockName);
          }
        };
    CompositeLockStatsListener composite =
        new CompositeLockStatsListener(List.of(failing, alsoFailing, counting));
    assertThatThrownBy(() -> composite.renewed("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("first")
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    assertThat(told).containsExactly("failing a", "also a", "counting a");
  }
}
