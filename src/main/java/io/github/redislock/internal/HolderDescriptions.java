package io.github.redislock.internal;

import io.github.redislock.internal.backend.LockBackend;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who holds a lock, written beside its key for {@code RedisLockFactory.inspect} when the factory
 * was built with {@code describeHolders()}: host, process id, the acquiring thread's name, and the
 * time, with the lock's expiry, extended at every renewal. Off, it costs nothing; on, one Redis
 * call per acquisition and per renewal. Best effort: a failure is logged and leaves the lock alone.
 */
public final class HolderDescriptions {
  private static final Logger log = LoggerFactory.getLogger(HolderDescriptions.class);

  private final LockBackend backend;
  private final boolean enabled;
  private final String host;
  private final long pid;

  public HolderDescriptions(LockBackend backend, boolean enabled) {
    this.backend = backend;
    this.enabled = enabled;
    this.host = enabled ? localHost() : null;
    this.pid = ProcessHandle.current().pid();
  }

  /** The calling thread has just acquired {@code hold} in Redis. */
  void acquired(Hold hold) {
    acquired(hold, Thread.currentThread().getName());
  }

  /** As {@link #acquired(Hold)}, for a holder named {@code holder} rather than a thread. */
  void acquired(Hold hold, String holder) {
    if (!enabled) {
      return;
    }
    try {
      backend.describeHolder(hold.keys, hold.token, host, pid, holder);
      hold.described();
    } catch (RuntimeException e) {
      log.debug("could not describe the holder of lock '{}'", hold.name, e);
    }
  }

  /** {@code hold} was renewed: its description lives as long again. */
  public void renewed(Hold hold) {
    if (!enabled || !hold.isDescribed()) {
      return;
    }
    try {
      backend.describeHolder(hold.keys, hold.token, null, 0, null);
    } catch (RuntimeException e) {
      log.debug("could not extend the description of the holder of lock '{}'", hold.name, e);
    }
  }

  private static String localHost() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }
}
