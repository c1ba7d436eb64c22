package io.github.redislock.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A hold lost before its release, as reported to the factory's {@code onLockLost} listener. */
@Name("io.github.redislock.LostHold")
@Label("Lost Lock Hold")
@Category({"Redis Lock"})
@Description("A hold lost before its release: lease ran out, key deleted or taken, factory closed")
@StackTrace(false)
public final class LostHoldEvent extends jdk.jfr.Event {
  @Label("Lock Name")
  public String lockName;

  @Label("Reason")
  public String reason;

  @Label("Fencing Token")
  @Description("The lost hold's fencing token, 0 when its holder never asked for one")
  public long fencingToken;
}
