package io.github.redislock.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A renewal that could not reach Redis; it is retried at the next tick, until the lease ends. */
@Name("io.github.redislock.RenewalFailure")
@Label("Lock Renewal Failure")
@Category({"Redis Lock"})
@Description("A lease renewal that failed; retried until the lease runs out")
@StackTrace(false)
public final class RenewalFailureEvent extends jdk.jfr.Event {
  @Label("Lock Name")
  public String lockName;

  @Label("Error")
  public String error;
}
