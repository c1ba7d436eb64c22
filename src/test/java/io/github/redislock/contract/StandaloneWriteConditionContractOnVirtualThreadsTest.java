package io.github.redislock.contract;

import io.github.redislock.testing.OnVirtualThreads;
import io.github.redislock.testing.VirtualThreads;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The write-lock condition contract suite against one standalone {@code redis-server}, every lock
 * owner a virtual thread: the test's own thread and the threads it starts. Skipped before Java 21.
 */
@ExtendWith(OnVirtualThreads.class)
class StandaloneWriteConditionContractOnVirtualThreadsTest
    extends StandaloneWriteConditionContractTest {
  @Override
  protected ExecutorService newThreads() {
    return VirtualThreads.available()
        ? Executors.newCachedThreadPool(VirtualThreads.factory("contract-virtual-"))
        : super.newThreads();
  }
}
