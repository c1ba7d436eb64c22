package io.github.redislock.internal.events;

import jdk.jfr.EventType;

/**
 * Whether each event is enabled in any running recording: checked before an event object is made,
 * so that with JFR off (or the event disabled) the lock's paths allocate nothing for it.
 */
public final class Jfr {
  private static final EventType ACQUISITION = EventType.getEventType(AcquisitionEvent.class);
  private static final EventType RELEASE = EventType.getEventType(ReleaseEvent.class);
  private static final EventType LOST_HOLD = EventType.getEventType(LostHoldEvent.class);
  private static final EventType RENEWAL_FAILURE =
      EventType.getEventType(RenewalFailureEvent.class);
  private static final EventType REDLOCK_ROUND = EventType.getEventType(RedlockRoundEvent.class);

  private Jfr() {}

  /**
   * Loads and initializes every event class, which the lock's paths otherwise first touch only when
   * a recording starts: a virtual thread that loads or initializes a class is pinned to its
   * carrier, and thousands may get there at once. Called when a factory is built.
   */
  public static void preload() {
    new AcquisitionEvent();
    new ReleaseEvent();
    new LostHoldEvent();
    new RenewalFailureEvent();
    new RedlockRoundEvent();
  }

  public static boolean acquisitions() {
    return ACQUISITION.isEnabled();
  }

  public static boolean releases() {
    return RELEASE.isEnabled();
  }

  public static boolean lostHolds() {
    return LOST_HOLD.isEnabled();
  }

  public static boolean renewalFailures() {
    return RENEWAL_FAILURE.isEnabled();
  }

  /** A Redlock round's event, begun now; {@code null} when the event is disabled. */
  public static RedlockRoundEvent beginRedlockRound() {
    if (!REDLOCK_ROUND.isEnabled()) {
      return null;
    }
    RedlockRoundEvent event = new RedlockRoundEvent();
    event.begin();
    return event;
  }
}
