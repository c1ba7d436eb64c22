package io.github.redislock.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures what is written to {@code System.err} (where the tests' slf4j-simple logs, from every
 * thread) between {@link #capture()} and {@link #close()}, and still passes it on.
 *
 * <pre>{@code
 * try (StdErr err = StdErr.capture()) {
 *   ...
 *   assertThat(err.text()).contains("WARN");
 * }
 * }</pre>
 */
public final class StdErr implements AutoCloseable {
  private final PrintStream original;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  private StdErr() {
    original = System.err;
    PrintStream tee =
        new PrintStream(
            new java.io.OutputStream() {
              @Override
              public void write(int b) {
                synchronized (captured) {
                  captured.write(b);
                }
                original.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                  captured.write(b, off, len);
                }
                original.write(b, off, len);
              }
            },
            true,
            StandardCharsets.UTF_8);
    System.setErr(tee);
  }

  /**
   * Starts capturing.
   *
   * @return the capture; close it
   */
  public static StdErr capture() {
    return new StdErr();
  }

  /**
   * What was written so far.
   *
   * @return the text
   */
  public String text() {
    synchronized (captured) {
      return captured.toString(StandardCharsets.UTF_8);
    }
  }

  /** Restores {@code System.err}. */
  @Override
  public void close() {
    System.setErr(original);
  }
}
