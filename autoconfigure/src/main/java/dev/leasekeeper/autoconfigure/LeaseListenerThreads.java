package dev.leasekeeper.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.DisposableBean;

/**
 * One thread per application {@link LeaseListenerProvider}, so that a listener that
 * blocks holds up neither the leases' timers nor the other listeners.
 *
 * @author Leasekeeper
 */
final class LeaseListenerThreads implements DisposableBean {

	private final Map<LeaseListenerProvider, ExecutorService> executors = new ConcurrentHashMap<>();

	private final AtomicInteger count = new AtomicInteger();

	ExecutorService executorFor(LeaseListenerProvider provider) {
		return this.executors.computeIfAbsent(provider, (key) -> {
			String name = "leasekeeper-listener-" + this.count.incrementAndGet();
			return Executors.newSingleThreadExecutor((runnable) -> {
				Thread thread = new Thread(runnable, name);
				thread.setDaemon(true);
				return thread;
			});
		});
	}

	@Override
	public void destroy() throws InterruptedException {
		List<ExecutorService> all = List.copyOf(this.executors.values());
		all.forEach(ExecutorService::shutdown);
		for (ExecutorService executor : all) {
			// the stop notifications; a listener that blocks is not waited for long
			if (!executor.awaitTermination(1, TimeUnit.SECONDS)) {
				executor.shutdownNow();
			}
		}
	}

}
