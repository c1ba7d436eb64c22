package io.github.redislock.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * One acquisition of a lock by a thread that did not hold it: its duration is the wait. By default
 * only acquisitions of 20 ms or more are recorded, as for {@code jdk.JavaMonitorEnter}.
 */
@Name("io.github.redislock.Acquisition")
@Label("Lock Acquisition")
@Category({"Redis Lock"})
@Description("A lock call of a thread that did not hold the lock: its duration is the wait")
@Threshold("20 ms")
@StackTrace(true)
public final class AcquisitionEvent extends jdk.jfr.Event {
  @Label("Lock Name")
  public String lockName;

  @Label("Kind")
  @Description("lock, fair, read or write")
  public String kind;

  @Label("Outcome")
  @Description("acquired, busy, timed out, interrupted, error or failed")
  public String outcome;

  @Label("Redis Round Trips")
  @Description("Attempts sent to Redis (0: the hold came by local handoff)")
  public int roundTrips;

  @Label("Local Handoff")
  @Description("Whether the hold came from another thread of this JVM without a release in Redis")
  public boolean handoff;
}
