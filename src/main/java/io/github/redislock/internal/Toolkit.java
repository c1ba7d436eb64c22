package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockBackend;
import io.github.redislock.internal.util.Ticker;
import io.github.redislock.internal.wakeup.WakeUpHub;

/**
 * The machinery a factory's lock families share: one per factory, built by {@link LockEngine}.
 *
 * @param backend the Redis operations of the deployment
 * @param settings the factory's settings
 * @param lifecycle whether the factory is closed
 * @param ticker the clock of every deadline and lease
 * @param validNanos how long a hold counts as held after its acquisition or renewal started: the
 *     lease less the backend's drift allowance
 * @param losses reports lost holds
 * @param releases releases and cleans up
 * @param handoff local handoff of holds between threads of this JVM
 * @param turns turns between processes
 * @param wakeUps the factory's wake-up channels and waiting threads
 * @param renewer renews every hold of the factory
 * @param waiting what every acquisition's wait shares
 * @param holders who holds a lock, written beside it for inspection (when enabled)
 * @param telemetry the JFR events and statistics
 */
record Toolkit(
    LockBackend backend,
    Settings settings,
    Lifecycle lifecycle,
    Ticker ticker,
    long validNanos,
    LossReporter losses,
    Releases releases,
    LocalHandoff handoff,
    Turns turns,
    WakeUpHub wakeUps,
    LeaseRenewer renewer,
    RedisWait.Context waiting,
    HolderDescriptions holders,
    Telemetry telemetry) {}
