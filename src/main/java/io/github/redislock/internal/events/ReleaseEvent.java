package io.github.redislock.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One release of a hold in Redis, with how long it was held. Off by default (releases are as
 * frequent as acquisitions, and cheap): enable it in a recording's settings.
 */
@Name("io.github.redislock.Release")
@Label("Lock Release")
@Category({"Redis Lock"})
@Description("A hold released in Redis, with how long it was held")
@Enabled(false)
@StackTrace(false)
public final class ReleaseEvent extends jdk.jfr.Event {
  @Label("Lock Name")
  public String lockName;

  @Label("Kind")
  public String kind;

  @Label("Hold Time")
  @Description("From the acquisition in Redis to this release")
  @Timespan(Timespan.NANOSECONDS)
  public long holdTime;

  @Label("Released")
  @Description("False when the key was found gone or taken: the hold had been lost")
  public boolean released;
}
