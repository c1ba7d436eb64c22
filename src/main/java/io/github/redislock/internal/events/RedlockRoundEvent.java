package io.github.redislock.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * One Redlock acquisition round over the masters: how many granted, refused and failed (or did not
 * answer in time). By default only rounds of 20 ms or more are recorded.
 */
@Name("io.github.redislock.RedlockRound")
@Label("Redlock Round")
@Category({"Redis Lock"})
@Description("One acquisition round over the Redlock masters")
@Threshold("20 ms")
@StackTrace(false)
public final class RedlockRoundEvent extends jdk.jfr.Event {
  @Label("Lock Name")
  @Description("The lock key")
  public String lockName;

  @Label("Masters")
  public int masters;

  @Label("Granted")
  public int granted;

  @Label("Denied")
  @Description("Masters where another owner holds the lock")
  public int denied;

  @Label("Failed")
  @Description("Masters that failed or did not answer within the node timeout")
  public int failed;

  @Label("Acquired")
  @Description("Whether a majority granted")
  public boolean acquired;
}
