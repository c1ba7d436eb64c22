package io.github.redislock.bench;

/** The timed scenarios, each run for every implementation in every round. */
enum Scenario {
  UNCONTENDED(
      "uncontended",
      "a. uncontended",
      "1 thread, one key; a lock+unlock pair per op; latency = the pair"),
  REENTRANT(
      "reentrant",
      "b. reentrant",
      "1 thread holding the lock; a nested lock+unlock pair per op; latency = the pair"),
  ONE_KEY(
      "one-key",
      "c. N threads, one key",
      "N threads of one JVM on one key; an acquisition per op; latency = wait in lock()"),
  TWO_JVMS(
      "two-jvms",
      "d. 2 JVMs x N threads",
      "2 JVMs x N threads on one key; an acquisition per op; latency = wait in lock()"),
  OWN_KEYS(
      "own-keys",
      "e. N threads, own keys",
      "N threads, each on its own key; a lock+unlock pair per op; latency = the pair");

  private final String id;
  private final String title;
  private final String description;

  Scenario(String id, String title, String description) {
    this.id = id;
    this.title = title;
    this.description = description;
  }

  String id() {
    return id;
  }

  String title() {
    return title;
  }

  String description() {
    return description;
  }

  /**
   * Whether the scenario means anything for {@code impl}: reentrancy needs a reentrant lock,
   * contention needs a lock that excludes.
   */
  boolean appliesTo(Implementation impl) {
    return switch (this) {
      case REENTRANT -> impl.reentrant();
      case ONE_KEY, TWO_JVMS -> impl.excludes();
      default -> true;
    };
  }
}
