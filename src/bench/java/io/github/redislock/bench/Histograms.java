package io.github.redislock.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/** Moving HdrHistograms between JVMs, and reading them in microseconds. */
final class Histograms {
  private Histograms() {}

  /** The histogram, compressed and Base64-encoded onto one line. */
  static String encode(Histogram histogram) {
    ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int length = histogram.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
  }

  static Histogram decode(String line) {
    try {
      return Histogram.decodeFromCompressedByteBuffer(
          ByteBuffer.wrap(Base64.getDecoder().decode(line)), 0);
    } catch (DataFormatException e) {
      throw new IllegalArgumentException("not an encoded histogram", e);
    }
  }

  /** The value at {@code percentile} (0 to 100) in microseconds. */
  static double micros(Histogram histogram, double percentile) {
    return histogram.getValueAtPercentile(percentile) / 1000.0;
  }

  /** Microseconds for a table: 2 decimals below 10 µs, 1 below 1000, none above. */
  static String formatMicros(double micros) {
    if (micros < 10) {
      return String.format(Locale.ROOT, "%.2f", micros);
    }
    if (micros < 1000) {
      return String.format(Locale.ROOT, "%.1f", micros);
    }
    return String.format(Locale.ROOT, "%,.0f", micros);
  }
}
