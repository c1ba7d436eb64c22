package io.github.redislock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Links to the documentation resolve wherever they are read. The Javadoc ships in a jar of its own,
 * away from the repository, so a page of {@code docs/} named in {@code src/main/java} (in Javadoc,
 * a comment or an exception message) is an absolute link built from the POM's {@code <url>}, to a
 * page that exists. The Markdown pages (the README, {@code docs/} and the others) are read on the
 * repository's site, so their relative links point to files of the repository, and their anchors to
 * headings of those files.
 */
class DocLinksTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().normalize();

  /** What follows the POM's {@code <url>} in a link to a file of the main branch. */
  private static final String BRANCH = "/blob/main/";

  /** A reference to a page of {@code docs/}: the path, without a trailing full stop. */
  private static final Pattern DOCS_PATH = Pattern.compile("docs/[A-Za-z0-9_./-]*[A-Za-z0-9_/-]");

  /** An HTML link, as Javadoc writes it, possibly wrapped over lines of a comment. */
  private static final Pattern HTML_LINK =
      Pattern.compile("<a[\\s*]+href=\"([^\"]*)\"\\s*>([^<]*)</a>", Pattern.DOTALL);

  /** A Markdown link or image: {@code [text](target)}, {@code ![alt](target)}. */
  private static final Pattern MARKDOWN_LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  /** A Markdown heading (ATX). */
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

  /** A link with a scheme ({@code https:}, {@code mailto:}): not a file of the repository. */
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*");

  @Test
  void thePomNamesTheProjectsUrl() {
    assertThat(projectUrl()).as("the POM's <url>").startsWith("https://").doesNotEndWith("/");
  }

  @Test
  void everyDocsPageNamedInTheLibraryIsAnAbsoluteLinkToAPageThatExists() throws IOException {
    String base = projectUrl() + BRANCH;
    List<String> problems = new ArrayList<>();
    for (Path file : files(ROOT.resolve("src/main/java"), ".java")) {
      String text = read(file);
      Set<Integer> linkTexts = new LinkedHashSet<>();
      Matcher link = HTML_LINK.matcher(text);
      while (link.find()) {
        String href = link.group(1);
        String shown = link.group(2).strip();
        if (href.startsWith(base) && hrefPath(href, base).equals(shown)) {
          linkTexts.add(link.start(2) + link.group(2).indexOf(shown));
        }
      }
      Matcher docs = DOCS_PATH.matcher(text);
      while (docs.find()) {
        String where = ROOT.relativize(file) + ":" + lineOf(text, docs.start());
        boolean absolute = text.startsWith(base, docs.start() - base.length());
        if (!absolute && !linkTexts.contains(docs.start())) {
          problems.add(
              where
                  + ": "
                  + docs.group()
                  + " is not a link starting with "
                  + base
                  + " (the "
                  + "Javadoc is read away from the repository)");
          continue;
        }
        String fragment = fragmentAt(text, docs.end());
        problems.addAll(targetProblems(where, ROOT.resolve(docs.group()), fragment));
      }
    }
    assertThat(problems).as("docs/ references in src/main/java").isEmpty();
  }

  @Test
  void everyLinkOfTheMarkdownPagesPointsToAFileOfTheRepository() throws IOException {
    String base = projectUrl() + BRANCH;
    List<String> problems = new ArrayList<>();
    for (Path page : files(ROOT, ".md")) {
      String name = ROOT.relativize(page).toString();
      List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).startsWith("```")) {
          fenced = !fenced;
        }
        if (fenced) {
          continue;
        }
        Matcher link = MARKDOWN_LINK.matcher(lines.get(i));
        while (link.find()) {
          String where = name + ":" + (i + 1);
          String target = link.group(1);
          int hash = target.indexOf('#');
          String path = hash < 0 ? target : target.substring(0, hash);
          String fragment = hash < 0 ? null : target.substring(hash + 1);
          Path resolved;
          if (target.startsWith(base)) {
            resolved = ROOT.resolve(hrefPath(target, base));
          } else if (SCHEME.matcher(target).matches()) {
            continue;
          } else {
            resolved = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
            if (!resolved.startsWith(ROOT)) {
              problems.add(where + ": " + target + " leaves the repository");
              continue;
            }
          }
          problems.addAll(targetProblems(where + ": " + target, resolved, fragment));
        }
      }
    }
    assertThat(problems).as("links of the Markdown pages").isEmpty();
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
  @Test
  void anchorsAreMadeAsGitHubMakesThem() {
    assertThat(anchor("Redis failures are not \"busy\"")).isEqualTo("redis-failures-are-not-busy");
    assertThat(anchor("Your own client: `client(...)`")).isEqualTo("your-own-client-client");
    assertThat(anchor("Compatibility with `ReentrantLock`"))
        .isEqualTo("compatibility-with-reentrantlock");
  }

  /** The problems of a link to {@code file}, and to its heading {@code fragment} if not null. */
  private static List<String> targetProblems(String where, Path file, String fragment) {
    if (!Files.exists(file)) {
      return List.of(where + ": " + ROOT.relativize(file) + " does not exist");
    }
    if (fragment == null || fragment.isEmpty() || !file.toString().endsWith(".md")) {
      return List.of();
    }
    if (!anchors(file).contains(fragment)) {
      return List.of(where + ": " + ROOT.relativize(file) + " has no heading #" + fragment);
    }
    return List.of();
  }

  /** The path of a file of the repository that an absolute link names, without its fragment. */
  private static String hrefPath(String href, String base) {
    String path = href.substring(base.length());
    int hash = path.indexOf('#');
    return hash < 0 ? path : path.substring(0, hash);
  }

  /** The fragment that follows a path ending at {@code end}, or null. */
  private static String fragmentAt(String text, int end) {
    if (end >= text.length() || text.charAt(end) != '#') {
      return null;
    }
    Matcher fragment = Pattern.compile("[A-Za-z0-9_-]*").matcher(text);
    fragment.region(end + 1, text.length());
    return fragment.lookingAt() ? fragment.group() : null;
  }

  /** The anchors of the headings of a Markdown page, as GitHub makes them. */
  private static Set<String> anchors(Path page) {
    Set<String> anchors = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fenced = false;
    try {
      for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
        if (line.startsWith("```")) {
          fenced = !fenced;
        }
        Matcher heading = HEADING.matcher(line);
        if (!fenced && heading.matches()) {
          String anchor = anchor(heading.group(1));
          int count = seen.merge(anchor, 1, Integer::sum);
          anchors.add(count == 1 ? anchor : anchor + "-" + (count - 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return anchors;
  }

  private static String anchor(String heading) {
    return heading
        .strip()
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N}\\p{M}_ -]", "")
        .replace(' ', '-');
  }

  /**
   * The POM's own {@code <url>}: the one directly inside {@code <project>}, not a license's or the
   * SCM's.
   */
  private static String projectUrl() {
    String pom = read(ROOT.resolve("pom.xml")).replaceAll("(?s)<!--.*?-->|<\\?.*?\\?>", "");
    Matcher tag = Pattern.compile("<(/?)([A-Za-z][\\w.:-]*)[^>]*?(/?)>").matcher(pom);
    int depth = 0;
    while (tag.find()) {
      if (!tag.group(1).isEmpty()) {
        depth--;
      } else if (tag.group(3).isEmpty()) {
        depth++;
        if (depth == 2 && tag.group(2).equals("url")) {
          int end = pom.indexOf("</url>", tag.end());
          return pom.substring(tag.end(), end).strip();
        }
      }
    }
    throw new AssertionError("pom.xml has no <url> in <project>");
  }

  private static List<Path> files(Path under, String suffix) throws IOException {
    try (Stream<Path> walk = Files.walk(under)) {
      return walk.filter(p -> p.toString().endsWith(suffix))
          .filter(p -> !skipped(ROOT.relativize(p)))
          .sorted()
          .toList();
    }
  }

  /** Build output and hidden folders (.git, .mvn) hold no page of the project. */
  private static boolean skipped(Path relative) {
    for (Path part : relative) {
      String name = part.toString();
      if (name.equals("target") || name.startsWith(".")) {
        return true;
      }
    }
    return false;
  }

  private static int lineOf(String text, int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
