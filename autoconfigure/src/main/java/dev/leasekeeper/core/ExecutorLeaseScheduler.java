package dev.leasekeeper.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The {@link LeaseScheduler} of a running application: one scheduling thread for all
 * leases (a binary heap of delayed tasks, {@code O(log n)} per event) and a small fixed
 * pool of worker threads for the calls to the store. Reads a {@link MonotonicClock}.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class ExecutorLeaseScheduler implements LeaseScheduler, AutoCloseable {

	private static final Log logger = LogFactory.getLog(ExecutorLeaseScheduler.class);

	private final Clock clock = new MonotonicClock();

	private final ScheduledThreadPoolExecutor scheduler;

	private final ExecutorService workers;

	/**
	 * Create a new scheduler.
	 * @param workerThreads how many calls to the store may run at once
	 */
	public ExecutorLeaseScheduler(int workerThreads) {
		this(fixedWorkers(workerThreads));
	}

	/**
	 * Create a new scheduler whose calls to the store run on the given executor (shut
	 * down with the scheduler).
	 * @param workers runs the calls to the store
	 */
	public ExecutorLeaseScheduler(ExecutorService workers) {
		Assert.notNull(workers, "'workers' must not be null");
		this.scheduler = new ScheduledThreadPoolExecutor(1, daemonThreads("leasekeeper-scheduler"));
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.workers = workers;
	}

	private static ExecutorService fixedWorkers(int workerThreads) {
		Assert.isTrue(workerThreads > 0, "'workerThreads' must be positive");
		ThreadPoolExecutor workers = new ThreadPoolExecutor(workerThreads, workerThreads, 60, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), daemonThreads("leasekeeper-io-"));
		workers.allowCoreThreadTimeOut(true);
		return workers;
	}

	/**
	 * Return an executor that runs each call on a virtual thread of its own, on Java 21
	 * or later.
	 * @return the executor, or {@code null} on an older Java
	 */
	public static @Nullable ExecutorService virtualThreads() {
		try {
			return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			return null;
		}
	}

	@Override
	public Clock clock() {
		return this.clock;
	}

	@Override
	public Cancellable schedule(Instant at, Runnable task) {
		Instant now = now();
		long delay = at.isAfter(now) ? Duration.between(now, at).toNanos() : 0;
		try {
			ScheduledFuture<?> future = this.scheduler.schedule(guarded(task), delay, TimeUnit.NANOSECONDS);
			return () -> future.cancel(false);
		}
		catch (RejectedExecutionException ex) {
			// shut down: nothing runs any more
			return () -> {
			};
		}
	}

	@Override
	public <T> Cancellable call(Callable<T> call, BiConsumer<@Nullable T, @Nullable Exception> then) {
		if (this.workers.isShutdown()) {
			return () -> {
			};
		}
		Interruptible<T> task = new Interruptible<>(call,
				(result, failure) -> schedule(Instant.MIN, () -> then.accept(result, failure)));
		try {
			this.workers.execute(guarded(task));
		}
		catch (RejectedExecutionException ex) {
			// shut down meanwhile: nothing runs any more
		}
		return task::cancel;
	}

	/**
	 * Stop both threads, waiting up to {@code timeout} for running tasks.
	 * @param timeout how long to wait
	 * @throws InterruptedException if interrupted while waiting
	 */
	public void shutdown(Duration timeout) throws InterruptedException {
		this.scheduler.shutdown();
		this.workers.shutdown();
		long deadline = System.nanoTime() + timeout.toNanos();
		this.scheduler.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
		this.workers.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
		this.workers.shutdownNow();
	}

	private static Runnable guarded(Runnable task) {
		return () -> {
			try {
				task.run();
			}
			catch (RuntimeException | Error ex) {
				// a task that throws must never take the scheduling thread with it
				logger.error("Leasekeeper task failed", ex);
			}
		};
	}

	/**
	 * A call on a worker that can be called off: before it starts (it never runs and
	 * fails), or while it runs (its thread is interrupted, never after the call returned:
	 * the worker goes on to the next call with its interrupt flag clear).
	 */
	private static final class Interruptible<T> implements Runnable {

		private final Callable<T> call;

		private final BiConsumer<@Nullable T, @Nullable Exception> outcome;

		private @Nullable Thread runner;

		private boolean cancelled;

		private boolean done;

		Interruptible(Callable<T> call, BiConsumer<@Nullable T, @Nullable Exception> outcome) {
			this.call = call;
			this.outcome = outcome;
		}

		@Override
		public void run() {
			synchronized (this) {
				if (this.cancelled) {
					this.done = true;
				}
				else {
					this.runner = Thread.currentThread();
				}
			}
			if (this.runner == null) {
				this.outcome.accept(null, new java.util.concurrent.CancellationException("called off before it ran"));
				return;
			}
			try {
				LeaseScheduler.complete(this.call, this.outcome);
			}
			finally {
				synchronized (this) {
					this.done = true;
					this.runner = null;
				}
				// an interrupt meant for this call must not reach the next one
				Thread.interrupted();
			}
		}

		synchronized void cancel() {
			if (this.done || this.cancelled) {
				return;
			}
			this.cancelled = true;
			if (this.runner != null) {
				this.runner.interrupt();
			}
		}

	}

	private static ThreadFactory daemonThreads(String name) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, name.endsWith("-") ? name + count.incrementAndGet() : name);
			thread.setDaemon(true);
			return thread;
		};
	}

}
