package dev.leasekeeper.autoconfigure;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.springframework.beans.factory.DisposableBean;

/**
 * The thread Leasekeeper publishes its events on: one, so that events of a lease arrive
 * in order, and never the renewal thread. Not an {@link java.util.concurrent.Executor}
 * bean, so that it does not stand in for the application's own task executor.
 *
 * @author Leasekeeper
 */
final class LeasekeeperEvents implements DisposableBean {

	private final ExecutorService executor = Executors.newSingleThreadExecutor((runnable) -> {
		Thread thread = new Thread(runnable, "leasekeeper-events");
		thread.setDaemon(true);
		return thread;
	});

	ExecutorService executor() {
		return this.executor;
	}

	@Override
	public void destroy() {
		this.executor.shutdown();
	}

}
