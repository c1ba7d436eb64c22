package io.github.redislock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.github.redislock.contract.Deployment;
import io.github.redislock.test.RedisBinary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestTemplate;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Keeps {@code mvn test} fast: a test class that starts servers, child JVMs, proxies or containers
 * must be tagged {@link IntegrationTest} (so that it runs in {@code verify}, not in {@code test}).
 *
 * <p>Reads the compiled test classes with ArchUnit. A test class uses a fixture when it, one of its
 * superclasses, or a class nested in one of them (anonymous classes and {@code @Nested} classes
 * included) refers to one in its code: the fixtures of this package that start processes or
 * sockets, a contract {@code Deployment}, Testcontainers, embedded-redis, or {@link
 * ProcessBuilder}. A new fixture that starts something belongs in {@link #FIXTURES}.
 */
class IntegrationTagTest {
  private static final Set<Class<?>> FIXTURES =
      Set.of(
          RedisServer.class,
          RedisCluster.class,
          RedisSentinelGroup.class,
          RedisServerExtension.class,
          RedisBinary.class,
          JvmProcess.class,
          ProcessSupport.class,
          TcpProxy.class,
          RespProxy.class,
          ProxiedDeployment.class,
          TlsMaterial.class,
          Deployment.class,
          ProcessBuilder.class);
  private static final List<String> FIXTURE_PACKAGES =
      List.of("org.testcontainers", "redis.embedded");

  private static JavaClasses testClasses;

  @BeforeAll
  static void importTestClasses() {
    testClasses =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
            .importPackages("io.github.redislock");
  }

  @Test
  void everyTestClassThatStartsServersOrProcessesIsTaggedIntegration() {
    List<String> untagged = new ArrayList<>();
    fixtureUses()
        .forEach(
            (name, use) -> {
              if (!taggedIntegration(testClasses.get(name).reflect())) {
                untagged.add(name + ": " + use);
              }
            });

    assertThat(untagged)
        .as(
            "test classes that start servers, JVMs, proxies or containers without @%s"
                + " (they would run in mvn test)",
            IntegrationTest.class.getSimpleName())
        .isEmpty();
  }

  @Test
  void theCheckSeesTheFixturesInUse() {
    Map<String, String> uses = fixtureUses();

    assertThat(uses)
        .containsKeys(
            "io.github.redislock.testing.RedisServerTest",
            "io.github.redislock.contract.StandaloneLockContractTest",
            "io.github.redislock.process.KilledHolderTest",
            "io.github.redislock.concurrency.LocalQueueTest")
        .doesNotContainKeys(IntegrationTagTest.class.getName(), "io.github.redislock.BuilderTest");
  }

  /** Each test class that uses a fixture, with one such use as ArchUnit describes it. */
  private static Map<String, String> fixtureUses() {
    Map<String, String> uses = new TreeMap<>();
    for (JavaClass testClass : testClasses) {
      // This class names the fixtures only to find their uses.
      if (isTestClass(testClass) && !testClass.isEquivalentTo(IntegrationTagTest.class)) {
        firstFixtureUse(testClass).ifPresent(use -> uses.put(testClass.getName(), use));
      }
    }
    return uses;
  }

  private static boolean isTestClass(JavaClass type) {
    if (type.getModifiers().contains(JavaModifier.ABSTRACT) || type.isInterface()) {
      return false;
    }
    if (type.isNestedClass() && !type.isAnnotatedWith(Nested.class)) {
      return false;
    }
    List<JavaClass> owners = selfAndSuperclasses(type);
    boolean hasTests =
        owners.stream()
            .flatMap(c -> c.getMethods().stream())
            .anyMatch(
                method ->
                    method.isAnnotatedWith(Test.class)
                        || method.isAnnotatedWith(TestFactory.class)
                        || method.isMetaAnnotatedWith(TestTemplate.class));
    // A subclass of an abstract suite whose tests sit in @Nested classes runs those classes too.
    boolean hasNestedTests =
        testClasses.stream()
            .anyMatch(
                c ->
                    c.isAnnotatedWith(Nested.class)
                        && c.getEnclosingClass().map(owners::contains).orElse(false));
    return hasTests || hasNestedTests;
  }

  private static Optional<String> firstFixtureUse(JavaClass testClass) {
    List<JavaClass> owners = selfAndSuperclasses(testClass);
    return testClasses.stream()
        .filter(c -> owners.stream().anyMatch(owner -> isSelfOrNestedIn(c, owner)))
        .flatMap(c -> c.getDirectDependenciesFromSelf().stream())
        .filter(dependency -> isFixture(dependency.getTargetClass()))
        .map(Dependency::getDescription)
        .sorted()
        .findFirst();
  }

  private static List<JavaClass> selfAndSuperclasses(JavaClass type) {
    List<JavaClass> chain = new ArrayList<>();
    chain.add(type);
    chain.addAll(type.getAllRawSuperclasses());
    return chain;
  }

  private static boolean isSelfOrNestedIn(JavaClass candidate, JavaClass owner) {
    return candidate.equals(owner) || candidate.getName().startsWith(owner.getName() + "$");
  }

  private static boolean isFixture(JavaClass type) {
    JavaClass topLevel = type;
    while (topLevel.getEnclosingClass().isPresent()) {
      topLevel = topLevel.getEnclosingClass().get();
    }
    String packageName = type.getPackageName();
    return FIXTURES.stream().anyMatch(topLevel::isAssignableTo)
        || FIXTURE_PACKAGES.stream()
            .anyMatch(p -> packageName.equals(p) || packageName.startsWith(p + "."));
  }

  /** Whether JUnit sees the tag on the class: declared, inherited or on an enclosing class. */
  private static boolean taggedIntegration(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      if (AnnotationSupport.findRepeatableAnnotations(c, Tag.class).stream()
          .anyMatch(tag -> tag.value().equals(IntegrationTest.TAG))) {
        return true;
      }
    }
    return false;
  }
}
