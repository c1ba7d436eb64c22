package io.github.redislock.bench;

/** The timed scenarios, each run for every implementation in every round. */
enum Scenario {
  UNCONTENDED(
      "uncontended",
      "a. uncontended",
      "1 thread, one key; a lock+unlock pair per op; latency = the pair"),
  ONE_FROZEN(
      "frozen-1",
      "a1. uncontended, 1 of 5 frozen",
      "Redlock only: as a, with one master frozen (SIGSTOP) for the whole cell"),
  TWO_FROZEN(
      "frozen-2",
      "a2. uncontended, 2 of 5 frozen",
      "Redlock only: as a, with two masters frozen (SIGSTOP) for the whole cell"),
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

  /** How many of the five Redlock masters are frozen during the cell: 0, 1 or 2. */
  int frozenMasters() {
    return switch (this) {
      case ONE_FROZEN -> 1;
      case TWO_FROZEN -> 2;
      default -> 0;
    };
  }

  /** Whether the scenario is one of the uncontended pairs (a, a1, a2). */
  boolean uncontended() {
    return this == UNCONTENDED || frozenMasters() > 0;
  }

  /**
   * Whether the scenario means anything for {@code impl}: reentrancy needs a reentrant lock,
   * contention needs a lock that excludes, frozen masters need several.
   */
  boolean appliesTo(Implementation impl) {
    return switch (this) {
      case ONE_FROZEN, TWO_FROZEN -> impl.nodes() > 1;
      case REENTRANT -> impl.reentrant();
      case ONE_KEY, TWO_JVMS -> impl.excludes();
      default -> true;
    };
  }
}
