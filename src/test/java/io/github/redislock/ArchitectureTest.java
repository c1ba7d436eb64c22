package io.github.redislock;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers of the library (see docs/architecture.md), checked on its compiled classes: the public
 * package reaches the internals only through the factory and the engine's entry points; the engine
 * ({@code internal.engine}) builds the conditions ({@code internal.condition}) on the core ({@code
 * internal}), and neither lower layer names a higher one; the core uses the kinds, the backends and
 * the wake-ups; backends use transports; nothing points back up; no package cycles, and no cycles
 * among top-level classes. And no source file in {@code src/main} is longer than the reader can
 * take in one sitting.
 */
class ArchitectureTest {
  private static final String API = "io.github.redislock";
  private static final String INTERNAL = "io.github.redislock.internal";
  private static final String CORE = INTERNAL;
  private static final String CONDITION = "io.github.redislock.internal.condition";
  private static final String ENGINE = "io.github.redislock.internal.engine";
  private static final String BACKEND = "io.github.redislock.internal.backend";
  private static final String TRANSPORT = "io.github.redislock.internal.transport";
  private static final String CLIENT = "io.github.redislock.internal.client";
  private static final String UTIL = "io.github.redislock.internal.util";
  private static final String WAKEUP = "io.github.redislock.internal.wakeup";
  private static final String JEDIS = "io.github.redislock.internal.jedis";
  private static final String EVENTS = "io.github.redislock.internal.events";
  private static final String KIND = "io.github.redislock.internal.kind";
  private static final int MAX_LINES_OF_CODE = 350;

  /**
   * The API types that internal code throws or publishes: the contract's own exceptions and event,
   * the one dependency from the internals to the public package.
   */
  private static final Set<String> API_CONTRACT_TYPES =
      Set.of(
          LockLostException.class.getName(),
          RedisLockException.class.getName(),
          LockLostEvent.class.getName());

  /** A row of a table whose first cell is a package name in backquotes. */
  private static final Pattern TABLE_ROW = Pattern.compile("\\| `([a-z.]+)`[^|]*\\|.*");

  private static JavaClasses classes;

  /**
   * Assigns each class of the library to its top-level class (a nested, local or anonymous class
   * counts as the class it is declared in), and leaves out every other class.
   */
  private static final SliceAssignment TOP_LEVEL_CLASSES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String name = javaClass.getName();
          if (!name.startsWith(API + ".")) {
            return SliceIdentifier.ignore();
          }
          int nested = name.indexOf('$');
          return SliceIdentifier.of(nested < 0 ? name : name.substring(0, nested));
        }

        @Override
        public String getDescription() {
          return "the top-level classes of src/main";
        }
      };

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(API);
  }

  /**
   * No dependency cycle among the top-level classes of src/main: the classes of a cycle can only be
   * read, tested and changed together. A failure names the classes of each cycle and the
   * dependencies that close it.
   */
  @Test
  void topLevelClassesAreFreeOfCycles() {
    slices().assignedFrom(TOP_LEVEL_CLASSES).should().beFreeOfCycles().check(classes);
  }

  @Test
  void packagesFormNoCycle() {
    slices()
        .matching("io.github.redislock.(**)")
        .should()
        .beFreeOfCycles()
        .ignoreDependency(
            describe("anything", c -> true),
            describe(
                "the API's exceptions and event", c -> API_CONTRACT_TYPES.contains(c.getName())))
        .check(classes);
  }

  /**
   * The facades reach the internals through the engine's entry points only: the core's families
   * ({@code Mutexes}, {@code LockName}), the conditions ({@code LockConditions}) and the engine
   * ({@code ReadWriteFamily}); only the factory and {@code Snapshots} build and read the rest.
   */
  @Test
  void theApiReachesTheInternalsOnlyThroughTheFactoryAndTheEnginesEntryPoints() {
    noClasses()
        .that()
        .resideInAPackage(API)
        .and()
        .doNotHaveFullyQualifiedName(RedisLockFactory.class.getName())
        .and()
        .doNotHaveFullyQualifiedName(RedisLockFactory.Builder.class.getName())
        .should()
        .dependOnClassesThat(
            describe(
                "are below the core, the conditions and the engine (the facades talk to those)",
                c ->
                    c.getPackageName().startsWith(INTERNAL + ".")
                        && !c.getPackageName().equals(CONDITION)
                        && !c.getPackageName().equals(ENGINE)))
        .check(classes);
  }

  /** The core never names the conditions above it, nor the engine that builds both. */
  @Test
  void theCoreKnowsNothingOfConditionsOrTheEngine() {
    noClasses()
        .that()
        .resideInAPackage(CORE)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(CONDITION, ENGINE)
        .check(classes);
  }

  /** Conditions sit on the core and never name the engine that builds them. */
  @Test
  void conditionsNeverUseTheEngine() {
    noClasses()
        .that()
        .resideInAPackage(CONDITION)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(ENGINE, CLIENT, TRANSPORT, EVENTS)
        .check(classes);
  }

  @Test
  void backendsNeverUseTheEngine() {
    noClasses()
        .that()
        .resideInAnyPackage(BACKEND, TRANSPORT, CLIENT, UTIL, WAKEUP, EVENTS, KIND)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(CORE, CONDITION, ENGINE)
        .check(classes);
  }

  /**
   * The kinds of lock say what each does in Redis, through the deployment seam: they know nothing
   * of threads, waits, holds or wake-ups, and only the engine uses them.
   */
  @Test
  void kindsUseOnlyTheBackendAndTheUtilities() {
    noClasses()
        .that()
        .resideInAPackage(KIND)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(API, TRANSPORT, CLIENT, WAKEUP, EVENTS)
        .check(classes);
    noClasses()
        .that()
        .resideInAnyPackage(API, BACKEND, TRANSPORT, CLIENT, UTIL, WAKEUP, EVENTS)
        .should()
        .dependOnClassesThat(resideInAPackage(KIND))
        .check(classes);
  }

  @Test
  void transportsNeverUseBackends() {
    noClasses()
        .that()
        .resideInAPackage(TRANSPORT)
        .should()
        .dependOnClassesThat(resideInAPackage(BACKEND))
        .check(classes);
  }

  /** Wake-ups use the utilities only; JFR events use nothing internal. */
  @Test
  void wakeUpsAndEventsStandAlone() {
    noClasses()
        .that()
        .resideInAPackage(WAKEUP)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(API, BACKEND, TRANSPORT, CLIENT, EVENTS)
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage(EVENTS)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(API, BACKEND, TRANSPORT, CLIENT, UTIL, WAKEUP)
        .check(classes);
  }

  /** Nothing below the engine uses the wake-ups. */
  @Test
  void onlyTheEngineUsesTheWakeUps() {
    noClasses()
        .that()
        .resideInAnyPackage(BACKEND, TRANSPORT, CLIENT, UTIL, EVENTS)
        .should()
        .dependOnClassesThat(resideInAPackage(WAKEUP))
        .check(classes);
  }

  @Test
  void clientsAndUtilitiesStandAlone() {
    noClasses()
        .that()
        .resideInAnyPackage(CLIENT, UTIL)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(BACKEND, TRANSPORT)
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage(UTIL)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(CLIENT)
        .check(classes);
  }

  /** What the library knows of the Jedis on the class path depends on nothing of the library. */
  @Test
  void theJedisProbeStandsAlone() {
    noClasses()
        .that()
        .resideInAPackage(JEDIS)
        .should()
        .dependOnClassesThat(
            describe(
                "are of the library, outside internal.jedis",
                c -> c.getPackageName().startsWith(API) && !c.getPackageName().equals(JEDIS)))
        .check(classes);
  }

  /**
   * Monotonic time is read from a {@link io.github.redislock.internal.util.Ticker} only: the
   * factory's, which tests replace with a manual one, or its real-time {@code SYSTEM} where a wait
   * must be real (closing). (A {@code Condition.awaitUntil(Date)} reads the wall clock, as its
   * contract says.)
   */
  @Test
  void onlyTheTickerReadsTheClock() {
    noClasses()
        .that()
        .doNotHaveFullyQualifiedName(io.github.redislock.internal.util.Ticker.class.getName())
        .should()
        .callMethod(System.class, "nanoTime")
        .check(classes);
  }

  /** docs/architecture.md's table of layers names every package of the library. */
  @Test
  void everyPackageIsInTheArchitectureTable() throws IOException {
    Set<String> documented = new TreeSet<>();
    for (String line : Files.readAllLines(Path.of("docs/architecture.md"))) {
      Matcher row = TABLE_ROW.matcher(line);
      if (row.matches()) {
        String name = row.group(1);
        documented.add(name.startsWith(API) ? name : API + "." + name);
      }
    }
    Set<String> packages = new TreeSet<>();
    classes.forEach(c -> packages.add(c.getPackageName()));
    assertThat(documented)
        .as("the packages in docs/architecture.md's table of layers")
        .containsAll(packages);
  }

  @Test
  void noSourceFileIsLongerThan350LinesOfCode() throws IOException {
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      List<String> tooLong =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> linesOfCode(p) > MAX_LINES_OF_CODE)
              .map(p -> p + ": " + linesOfCode(p) + " lines of code")
              .toList();
      assertThat(tooLong).as("files over %d lines of code", MAX_LINES_OF_CODE).isEmpty();
    }
  }

  /** Lines that are neither blank nor comment (Javadoc included). */
  static int linesOfCode(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int count = 0;
    boolean inComment = false;
    for (String raw : lines) {
      String line = raw.strip();
      if (inComment) {
        int end = line.indexOf("*/");
        if (end < 0) {
          continue;
        }
        inComment = false;
        line = line.substring(end + 2).strip();
      }
      if (line.startsWith("/*")) {
        int end = line.indexOf("*/", 2);
        if (end < 0) {
          inComment = true;
          continue;
        }
        line = line.substring(end + 2).strip();
      }
      if (!line.isEmpty() && !line.startsWith("//")) {
        count++;
      }
    }
    return count;
  }

  @Test
  void linesOfCodeLeaveCommentsOut() throws IOException {
    Path file = Files.createTempFile("loc", ".java");
    try {
      Files.writeString(
          file, "/**\n * doc\n */\nclass A {\n  // note\n\n  int x; /* inline */\n}\n");
      assertThat(linesOfCode(file)).isEqualTo(3);
    } finally {
      Files.delete(file);
    }
  }
}
