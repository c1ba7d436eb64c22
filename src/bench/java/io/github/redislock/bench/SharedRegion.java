package io.github.redislock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A few longs in a memory-mapped file shared by the JVMs of the cross-process scenario: it checks
 * mutual exclusion across processes and times handoffs. {@code System.nanoTime()} is {@code
 * CLOCK_MONOTONIC} on Linux, so times written by one process are comparable in another.
 *
 * <p>A holder calls {@link #enter} right after {@code lock()} returns and {@link #exit} right
 * before {@code unlock()}; everything between is protected by the lock under test, except the
 * atomic "inside" count and the counters, which stay correct even when exclusion is broken.
 */
final class SharedRegion implements AutoCloseable {
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final int INSIDE = 0;
  private static final int VIOLATIONS = 8;
  private static final int COUNTER = 16;
  private static final int LAST_RELEASE = 24;
  private static final int LAST_HOLDER = 32;
  private static final int HANDOFFS = 40;
  private static final int MOVES = 48;
  private static final int SIZE = 64;

  private final FileChannel channel;
  private final MappedByteBuffer buffer;

  private SharedRegion(FileChannel channel, MappedByteBuffer buffer) {
    this.channel = channel;
    this.buffer = buffer;
  }

  /** Maps {@code file} (created and zeroed by the first caller, the parent). */
  static SharedRegion map(Path file) {
    try {
      FileChannel channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      return new SharedRegion(channel, channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot map " + file, e);
    }
  }

  /**
   * Records that holder {@code holder} (nonzero; {@code jvm * 1000 + thread + 1}) got the lock at
   * {@code nowNanos}.
   *
   * @return nanoseconds since the previous holder's {@link #exit} when the previous holder was
   *     another thread, else -1
   */
  long enter(long holder, long nowNanos) {
    if ((long) LONGS.getAndAdd(buffer, INSIDE, 1L) != 0) {
      LONGS.getAndAdd(buffer, VIOLATIONS, 1L);
    }
    long seen = (long) LONGS.get(buffer, COUNTER);
    LONGS.set(buffer, COUNTER, seen + 1);
    long previous = (long) LONGS.getVolatile(buffer, LAST_HOLDER);
    long released = (long) LONGS.getVolatile(buffer, LAST_RELEASE);
    LONGS.setVolatile(buffer, LAST_HOLDER, holder);
    if (previous == 0 || previous == holder) {
      return -1;
    }
    LONGS.getAndAdd(buffer, HANDOFFS, 1L);
    if (previous / 1000 != holder / 1000) {
      LONGS.getAndAdd(buffer, MOVES, 1L);
    }
    return nowNanos - released;
  }

  /** Records that the holder is about to call {@code unlock()}. */
  void exit() {
    LONGS.getAndAdd(buffer, INSIDE, -1L);
    LONGS.setVolatile(buffer, LAST_RELEASE, System.nanoTime());
  }

  /** Zeroes every field, between runs (no child is inside then). */
  void reset() {
    for (int offset = 0; offset < SIZE; offset += 8) {
      LONGS.setVolatile(buffer, offset, 0L);
    }
  }

  long violations() {
    return (long) LONGS.getVolatile(buffer, VIOLATIONS);
  }

  long counter() {
    return (long) LONGS.getVolatile(buffer, COUNTER);
  }

  /** Handoffs that went to a thread of the other JVM. */
  long moves() {
    return (long) LONGS.getVolatile(buffer, MOVES);
  }

  long handoffs() {
    return (long) LONGS.getVolatile(buffer, HANDOFFS);
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
