package io.github.redislock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockLostEvent;
import io.github.redislock.internal.backend.LockKeys;
import io.github.redislock.internal.kind.ExclusiveKind;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;

/**
 * The telemetry's costs and counts without Redis: off (no statistics, no JFR recording) it makes
 * nothing per call; on, it counts what the statistics say.
 */
class TelemetryTest {
  private final ManualTicker ticker = new ManualTicker();
  private final FakeBackend backend = new FakeBackend(ticker, Duration.ofSeconds(30));
  private final ExclusiveKind kind = new ExclusiveKind(backend);
  private final Hold hold =
      new Hold(kind, null, "a", LockKeys.of("a"), "t", 0, null, ticker.read(), 0, ticker);
  private final LockLostEvent lost = new LockLostEvent("a", 0, "gone");

  @Test
  void offItAllocatesNothingPerCall() throws Exception {
    Telemetry off = new Telemetry(false, null, ticker);
    Object threads = ManagementFactory.getThreadMXBean();
    Method allocatedBytes =
        Class.forName("com.sun.management.ThreadMXBean")
            .getMethod("getThreadAllocatedBytes", long.class);
    long thread = Thread.currentThread().getId();
    for (int warm = 0; warm < 3; warm++) {
      long before = (long) allocatedBytes.invoke(threads, thread);
      for (int i = 0; i < 100_000; i++) {
        if (off.acquiring() != null) {
          throw new AssertionError("an acquisition watched with nothing recording it");
        }
        off.released(hold, kind, true);
        off.renewed(hold);
        off.lost(lost);
        off.redisErrors("a", 1);
      }
      long allocated = (long) allocatedBytes.invoke(threads, thread) - before;
      if (warm == 2) {
        // a few hundred bytes of noise at most (the bean's own calls), not bytes per call
        assertThat(allocated).isLessThan(10_000);
      }
    }
  }

  @Test
  void aRecordingTurnsTheAcquisitionEventOnAndItsEndTurnsItOff() {
    Telemetry off = new Telemetry(false, null, ticker);
    try (Recording recording = new Recording()) {
      recording.enable("io.github.redislock.Acquisition");
      recording.start();
      Telemetry.Acquiring seen = off.acquiring();
      assertThat(seen).isNotNull();
      assertThat(seen.event).isNotNull();
      off.acquisitionEnded(seen, "a", kind, Mode.ONCE, true, null);
    }
    assertThat(off.acquiring()).isNull();
  }

  @Test
  void countsAcquisitionsWaitsTimeoutsFailuresAndHandoffs() {
    Telemetry on = new Telemetry(true, null, ticker);
    Telemetry.Acquiring first = on.acquiring();
    first.roundTrips = 2;
    ticker.advance(TimeUnit.MILLISECONDS.toNanos(30));
    on.acquisitionEnded(first, "a", kind, Mode.UNINTERRUPTIBLE, true, null);
    Telemetry.Acquiring handoff = on.acquiring();
    ticker.advance(TimeUnit.MILLISECONDS.toNanos(10));
    on.acquisitionEnded(handoff, "a", kind, Mode.UNINTERRUPTIBLE, true, null);
    on.acquisitionEnded(on.acquiring(), "a", kind, Mode.TIMED, false, null);
    on.acquisitionEnded(on.acquiring(), "a", kind, Mode.ONCE, false, null);
    Telemetry.Acquiring failing = on.acquiring();
    failing.roundTrips = 3;
    failing.redisErrors = 3;
    on.acquisitionEnded(failing, "a", kind, Mode.INTERRUPTIBLE, false, new InterruptedException());
    on.renewed(hold);
    on.lost(lost);

    Telemetry.Counts counts = on.counts();
    assertThat(counts.acquisitions()).isEqualTo(2);
    assertThat(counts.handoffs()).isEqualTo(1);
    assertThat(counts.totalWaitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(40));
    assertThat(counts.maxWaitNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
    assertThat(counts.timeouts()).isEqualTo(1);
    assertThat(counts.failures()).isEqualTo(2);
    assertThat(counts.redisErrors()).isEqualTo(3);
    assertThat(counts.renewals()).isEqualTo(1);
    assertThat(counts.lostHolds()).isEqualTo(1);
  }
}
