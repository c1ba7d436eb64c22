package io.github.redislock.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says what a leaked descriptor is, for failure reports: the addresses of a socket (from {@code
 * /proc/net}) and the processes at the other end of a pipe (from {@code /proc/<pid>/fd}). Best
 * effort: whatever cannot be read is left out.
 */
final class Descriptors {
  private static final Pattern INODE = Pattern.compile("(socket|pipe):\\[(\\d+)]");
  private static final long SELF = ProcessHandle.current().pid();

  private Descriptors() {}

  /**
   * Each target with what is known about it.
   *
   * @param targets descriptor targets as {@code /proc/self/fd} links name them
   * @return one description per target, in the same order
   */
  static List<String> describe(List<String> targets) {
    List<String> described = new ArrayList<>();
    for (String target : targets) {
      Matcher m = INODE.matcher(target);
      if (!m.matches()) {
        described.add(target);
      } else if (m.group(1).equals("socket")) {
        described.add(target + " " + socket(m.group(2)));
      } else {
        described.add(target + " " + pipe(target));
      }
    }
    return described;
  }

  /**
   * Whether {@code target} is a Unix domain socket (listed in {@code /proc/net/unix}).
   *
   * @param target a descriptor target as {@code /proc/self/fd} links name it
   * @return true for a Unix domain socket; false for anything else, or when it cannot be told
   */
  static boolean isUnixSocket(String target) {
    Matcher m = INODE.matcher(target);
    if (!m.matches() || !m.group(1).equals("socket")) {
      return false;
    }
    for (String line : lines(Path.of("/proc/net/unix"))) {
      String[] f = line.trim().split("\\s+");
      if (has(f, 6, m.group(2))) {
        return true;
      }
    }
    return false;
  }

  /** The socket's line of /proc/net/{tcp,tcp6,unix}: addresses in hex, and its state. */
  private static String socket(String inode) {
    for (String table : List.of("tcp", "tcp6", "unix")) {
      for (String line : lines(Path.of("/proc/net", table))) {
        String[] f = line.trim().split("\\s+");
        if (table.equals("unix") ? f.length > 6 && f[6].equals(inode) : has(f, 9, inode)) {
          return table.equals("unix")
              ? "(unix" + (f.length > 7 ? " " + f[7] : "") + ")"
              : "(" + table + " local " + f[1] + " remote " + f[2] + " state " + f[3] + ")";
        }
      }
    }
    return "(not in /proc/net)";
  }

  /** The other processes holding the same pipe, by command line. */
  private static String pipe(String target) {
    List<String> holders = new ArrayList<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        if (proc.getFileName().toString().equals(Long.toString(SELF)) || !holds(proc, target)) {
          continue;
        }
        holders.add(proc.getFileName() + " " + cmdline(proc));
      }
    } catch (IOException | RuntimeException e) {
      return "(holders unknown: " + e + ")";
    }
    return holders.isEmpty() ? "(no other holder)" : "(also held by " + holders + ")";
  }

  private static boolean holds(Path proc, String target) {
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
      for (Path fd : fds) {
        try {
          if (Files.readSymbolicLink(fd).toString().equals(target)) {
            return true;
          }
        } catch (IOException e) {
          // closed while listed
        }
      }
    } catch (IOException e) {
      return false; // another user's process, or gone
    }
    return false;
  }

  private static String cmdline(Path proc) {
    try {
      String line =
          new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8)
              .replace('\0', ' ')
              .trim();
      return line.length() > 120 ? line.substring(0, 120) + "..." : line;
    } catch (IOException e) {
      return "?";
    }
  }

  private static boolean has(String[] fields, int index, String value) {
    return fields.length > index && fields[index].equals(value);
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return List.of();
    }
  }
}
