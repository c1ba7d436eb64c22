package io.github.redislock.contract;

import io.github.redislock.testing.OnVirtualThreads;
import io.github.redislock.testing.VirtualThreads;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract suite against Redlock over three masters, every lock owner a virtual thread. Skipped
 * before Java 21.
 */
@ExtendWith(OnVirtualThreads.class)
class Redlock3LockContractOnVirtualThreadsTest extends Redlock3LockContractTest {
  @Override
  protected ExecutorService newThreads() {
    return VirtualThreads.available()
        ? Executors.newCachedThreadPool(VirtualThreads.factory("contract-virtual-"))
        : super.newThreads();
  }
}
