package io.github.redislock.testing;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a RESP byte stream frame by frame, keeping each frame's bytes as they came, for {@link
 * RespProxy}: commands (arrays of bulk strings, or inline commands) from a client, and replies of
 * RESP2 and RESP3 from a server: simple and bulk strings and errors, integers, doubles, big
 * numbers, booleans, nulls, verbatim strings, arrays, sets, maps, push frames ({@code >}) and
 * attributes ({@code |}, read with the reply they annotate). Streamed aggregates are not supported.
 * Not thread-safe: one reader per stream and thread.
 */
final class RespReader {
  /** A server's frame: its type byte (after any attribute) and its bytes. */
  record Frame(byte type, byte[] bytes) {
    boolean isPush() {
      return type == '>';
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Frame f && f.type == type && Arrays.equals(f.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return 31 * type + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "Frame[" + (char) type + ", " + bytes.length + " bytes]";
    }
  }

  private static final int MAX_LINE = 64 * 1024;

  private final InputStream in;
  private final ByteArrayOutputStream raw = new ByteArrayOutputStream(256);

  /**
   * A reader of {@code in}, which should be buffered (it is read a byte at a time).
   *
   * @param in the stream
   */
  RespReader(InputStream in) {
    this.in = in;
  }

  /** Whether bytes are buffered already, so that a frame may follow without waiting. */
  boolean hasBuffered() throws IOException {
    return in.available() > 0;
  }

  /** The underlying stream, to copy the rest of it as bytes. */
  InputStream stream() {
    return in;
  }

  /**
   * Reads a server's next frame.
   *
   * @return the frame, or null at the end of the stream between frames; a lone newline, which a
   *     master sends its replica to keep the connection alive, is a frame of type {@code '\n'}
   * @throws IOException on a read failure, an end of stream inside a frame or bytes that are not
   *     RESP
   */
  Frame readFrame() throws IOException {
    raw.reset();
    int first = in.read();
    if (first < 0) {
      return null;
    }
    raw.write(first);
    if (first == '\n') {
      return new Frame((byte) first, raw.toByteArray()); // a master's keep-alive to its replica
    }
    byte type = value(first);
    return new Frame(type, raw.toByteArray());
  }

  /**
   * Reads a client's next command.
   *
   * @return the command's arguments and bytes, or null at the end of the stream between commands
   * @throws IOException on a read failure, an end of stream inside a command or a malformed one
   */
  RespCommand readCommand() throws IOException {
    raw.reset();
    int first = in.read();
    if (first < 0) {
      return null;
    }
    raw.write(first);
    List<byte[]> args = new ArrayList<>();
    if (first == '*') {
      long count = number(line());
      for (long i = 0; i < count; i++) {
        int type = next();
        if (type != '$') {
          throw new IOException("a command argument is not a bulk string: " + (char) type);
        }
        long length = number(line());
        args.add(bytes(length));
      }
    } else {
      String inline = (char) first + new String(line(), StandardCharsets.UTF_8);
      for (String word : inline.trim().split(" +", -1)) {
        if (!word.isEmpty()) {
          args.add(word.getBytes(StandardCharsets.UTF_8));
        }
      }
    }
    return new RespCommand(args, raw.toByteArray());
  }

  /** Reads the rest of a value whose type byte {@code type} was read; returns its type. */
  private byte value(int type) throws IOException {
    switch (type) {
      case '+', '-', ':', ',', '(', '_', '#' -> line();
      case '$', '!', '=' -> {
        long length = number(line());
        if (length >= 0) {
          bytes(length);
        }
      }
      case '*', '~', '>' -> {
        long count = number(line());
        for (long i = 0; i < count; i++) {
          value(next());
        }
      }
      case '%' -> {
        long count = number(line());
        for (long i = 0; i < 2 * count; i++) {
          value(next());
        }
      }
      case '|' -> {
        long count = number(line());
        for (long i = 0; i < 2 * count; i++) {
          value(next());
        }
        return value(next()); // an attribute annotates the reply that follows it
      }
      default -> throw new IOException("not a RESP type byte: " + type);
    }
    return (byte) type;
  }

  private int next() throws IOException {
    int b = in.read();
    if (b < 0) {
      throw new EOFException("the stream ended inside a frame");
    }
    raw.write(b);
    return b;
  }

  /** The rest of a line, without its CRLF. */
  private byte[] line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(16);
    while (true) {
      int b = next();
      if (b == '\r') {
        if (next() != '\n') {
          throw new IOException("CR without LF");
        }
        return line.toByteArray();
      }
      line.write(b);
      if (line.size() > MAX_LINE) {
        throw new IOException("a line longer than " + MAX_LINE + " bytes");
      }
    }
  }

  /** {@code length} bytes and the CRLF after them. */
  private byte[] bytes(long length) throws IOException {
    if (length < 0) {
      return new byte[0];
    }
    byte[] data = in.readNBytes(Math.toIntExact(length));
    if (data.length != length) {
      throw new EOFException("the stream ended inside a bulk string");
    }
    raw.write(data);
    if (next() != '\r' || next() != '\n') {
      throw new IOException("a bulk string without its CRLF");
    }
    return data;
  }

  private static long number(byte[] line) throws IOException {
    try {
      return Long.parseLong(new String(line, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      throw new IOException("not a length: " + new String(line, StandardCharsets.US_ASCII), e);
    }
  }
}
