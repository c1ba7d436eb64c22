package io.github.redislock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The library's Lua scripts by SHA-1, read from its resources, so that a test can aim a fault at
 * one script ({@link Fault#onScript}) and a fault's record names the script a command ran.
 */
public final class LibraryScripts {
  private static final String DIRECTORY = "io/github/redislock/internal/backend/";
  private static final Map<String, String> NAME_BY_SHA = load();

  private LibraryScripts() {}

  /**
   * The SHA-1 that {@code EVALSHA} names the script by.
   *
   * @param file the script's file name, e.g. {@code "release.lua"}
   * @return its SHA-1 in lower-case hex
   * @throws IllegalArgumentException if the library has no such script
   */
  public static String sha(String file) {
    for (Map.Entry<String, String> e : NAME_BY_SHA.entrySet()) {
      if (e.getValue().equals(file)) {
        return e.getKey();
      }
    }
    throw new IllegalArgumentException(
        "the library has no script " + file + "; it has " + new TreeSet<>(NAME_BY_SHA.values()));
  }

  /**
   * The script's file name, for messages.
   *
   * @param sha a SHA-1 in lower-case hex
   * @return the file name, or {@code "script <first 8 hex digits>"} when the library has none
   */
  public static String nameOf(String sha) {
    String name = NAME_BY_SHA.get(sha);
    return name != null ? name : "script " + sha.substring(0, Math.min(8, sha.length()));
  }

  /** The SHA-1 of {@code source} in lower-case hex, as Redis computes a script's. */
  static String sha1(byte[] source) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(source));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-1", e);
    }
  }

  private static Map<String, String> load() {
    Map<String, String> scripts = new HashMap<>();
    try {
      Enumeration<URL> directories = LibraryScripts.class.getClassLoader().getResources(DIRECTORY);
      while (directories.hasMoreElements()) {
        read(directories.nextElement(), scripts);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the library's scripts", e);
    }
    if (scripts.isEmpty()) {
      throw new IllegalStateException("the library's scripts are not on the class path");
    }
    return Map.copyOf(scripts);
  }

  /** Adds the scripts of one class path entry's copy of the directory. */
  private static void read(URL directory, Map<String, String> scripts) throws IOException {
    try {
      if ("jar".equals(directory.getProtocol())) {
        JarFile jar = ((JarURLConnection) directory.openConnection()).getJarFile();
        Enumeration<JarEntry> entries = jar.entries();
        while (entries.hasMoreElements()) {
          String entry = entries.nextElement().getName();
          if (entry.startsWith(DIRECTORY) && entry.endsWith(".lua")) {
            try (InputStream in = jar.getInputStream(jar.getJarEntry(entry))) {
              scripts.put(sha1(in.readAllBytes()), entry.substring(DIRECTORY.length()));
            }
          }
        }
      } else {
        try (Stream<Path> files = Files.list(Path.of(directory.toURI()))) {
          for (Path file : files.filter(f -> f.toString().endsWith(".lua")).toList()) {
            scripts.put(sha1(Files.readAllBytes(file)), file.getFileName().toString());
          }
        }
      }
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot read the library's scripts in " + directory, e);
    }
  }

  /** The bytes of {@code text} as Redis receives them. */
  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
