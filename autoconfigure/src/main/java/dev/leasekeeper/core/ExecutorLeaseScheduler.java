package dev.leasekeeper.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The {@link LeaseScheduler} of a running application: one scheduling thread for all
 * leases and a small fixed pool of worker threads for the calls to the store. Reads a
 * {@link MonotonicClock}.
 * <p>
 * The scheduling thread owns its timers: a binary heap keyed by monotonic nanoseconds
 * ({@code O(log n)} per event, no lock), in which a lease's one {@link #timer timer} is
 * moved in place when it is re-armed. Other threads hand it work through a lock-free
 * queue and wake it only when it sleeps; work it gives itself goes to a local queue.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class ExecutorLeaseScheduler implements LeaseScheduler, AutoCloseable {

	private static final Log logger = LogFactory.getLog(ExecutorLeaseScheduler.class);

	private static final int RUNNING = 0;

	private static final int SHUTTING_DOWN = 1;

	private static final int STOPPED = 2;

	private final MonotonicClock clock = new MonotonicClock();

	private final ExecutorService workers;

	private final Thread thread;

	/** Work handed over by other threads. */
	private final ConcurrentLinkedQueue<Entry> incoming = new ConcurrentLinkedQueue<>();

	/** Work due now (scheduling thread only). */
	private final ArrayDeque<Entry> ready = new ArrayDeque<>();

	/** Timers by due time, then by when they were armed (scheduling thread only). */
	private Entry[] heap = new Entry[64];

	private long[] dues = new long[64];

	private long[] sequences = new long[64];

	private int size;

	private long sequence;

	private volatile boolean sleeping;

	private volatile int phase = RUNNING;

	private final CountDownLatch terminated = new CountDownLatch(1);

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
		this.workers = workers;
		this.thread = new Thread(this::loop, "leasekeeper-scheduler");
		this.thread.setDaemon(true);
		this.thread.start();
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
		Entry entry = new Entry(task);
		entry.due = this.clock.nanosAt(at);
		submit(entry);
		return entry;
	}

	@Override
	public Timer timer(Runnable task) {
		return new Entry(task);
	}

	@Override
	public <T> Cancellable call(Callable<T> call, BiConsumer<@Nullable T, @Nullable Exception> then) {
		if (this.workers.isShutdown()) {
			return () -> {
			};
		}
		Interruptible<T> task = new Interruptible<>(call,
				(result, failure) -> execute(() -> then.accept(result, failure)));
		try {
			this.workers.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// shut down meanwhile: nothing runs any more
		}
		return task;
	}

	/** Run a task on the scheduling thread as soon as it is free. */
	private void execute(Runnable task) {
		Entry entry = new Entry(task);
		entry.due = Long.MIN_VALUE;
		submit(entry);
	}

	private void submit(Entry entry) {
		if (this.phase != RUNNING) {
			// shut down: nothing new runs any more
			return;
		}
		if (onSchedulingThread()) {
			place(entry);
			return;
		}
		this.incoming.offer(entry);
		if (this.sleeping) {
			LockSupport.unpark(this.thread);
		}
	}

	private boolean onSchedulingThread() {
		return Thread.currentThread() == this.thread;
	}

	/**
	 * Put an entry where it belongs (scheduling thread): due now and ahead of every
	 * timer, or on the heap, so that what is due runs in the order of its instants, then
	 * of its scheduling.
	 */
	private void place(Entry entry) {
		if (entry.cancelled) {
			return;
		}
		if (entry.due <= this.clock.nanos() && (this.size == 0 || this.dues[0] > entry.due)) {
			this.ready.add(entry);
		}
		else {
			push(entry);
		}
	}

	/**
	 * Stop taking new work, run what is due, and stop the scheduling thread and the
	 * workers, waiting up to {@code timeout} for running tasks. Timers not yet due never
	 * run.
	 * @param timeout how long to wait
	 * @throws InterruptedException if interrupted while waiting
	 */
	public void shutdown(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		if (this.phase == RUNNING) {
			this.phase = SHUTTING_DOWN;
		}
		LockSupport.unpark(this.thread);
		this.workers.shutdown();
		this.terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
		this.workers.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	@Override
	public void close() {
		this.phase = STOPPED;
		LockSupport.unpark(this.thread);
		this.workers.shutdownNow();
	}

	private void loop() {
		try {
			while (this.phase != STOPPED) {
				runDue();
				if (this.phase == SHUTTING_DOWN && this.ready.isEmpty() && this.incoming.isEmpty()) {
					return;
				}
				sleepUntilWork();
			}
		}
		finally {
			this.terminated.countDown();
		}
	}

	/** One round: the timers due, then the work handed over and the work due now. */
	private void runDue() {
		long now = this.clock.nanos();
		while (this.size > 0 && this.dues[0] <= now && this.phase != STOPPED) {
			Entry entry = pop();
			run(entry);
		}
		Entry entry;
		while ((entry = this.incoming.poll()) != null) {
			place(entry);
		}
		while (this.phase != STOPPED && (entry = this.ready.poll()) != null) {
			run(entry);
		}
	}

	private void run(Entry entry) {
		if (entry.cancelled) {
			return;
		}
		try {
			entry.task.run();
		}
		catch (RuntimeException | Error ex) {
			// a task that throws must never take the scheduling thread with it
			logger.error("Leasekeeper task failed", ex);
		}
	}

	private void sleepUntilWork() {
		if (!this.ready.isEmpty()) {
			return;
		}
		this.sleeping = true;
		try {
			if (!this.incoming.isEmpty() || this.phase != RUNNING) {
				return;
			}
			if (this.size == 0) {
				LockSupport.park(this);
			}
			else {
				long wait = this.dues[0] - this.clock.nanos();
				if (wait > 0) {
					LockSupport.parkNanos(this, wait);
				}
			}
		}
		finally {
			this.sleeping = false;
		}
		// an interrupt (close) is seen through the phase, never kept
		Thread.interrupted();
	}

	private void push(Entry entry) {
		if (this.size == this.heap.length) {
			int capacity = this.size * 2;
			this.heap = Arrays.copyOf(this.heap, capacity);
			this.dues = Arrays.copyOf(this.dues, capacity);
			this.sequences = Arrays.copyOf(this.sequences, capacity);
		}
		siftUp(this.size++, entry, this.sequence++);
	}

	private Entry pop() {
		Entry top = this.heap[0];
		removeAt(0);
		return top;
	}

	private void removeAt(int index) {
		Entry removed = this.heap[index];
		removed.index = -1;
		int last = --this.size;
		Entry moved = this.heap[last];
		long sequence = this.sequences[last];
		this.heap[last] = null;
		if (index != last) {
			siftDown(index, moved, sequence);
			if (this.heap[index] == moved) {
				siftUp(index, moved, sequence);
			}
		}
	}

	/** Move an entry to its place after its due time changed. */
	private void rekey(Entry entry) {
		int index = entry.index;
		long sequence = this.sequence++;
		siftDown(index, entry, sequence);
		if (this.heap[index] == entry) {
			siftUp(index, entry, sequence);
		}
	}

	/*
	 * A four-ary heap whose keys (due time, then sequence) sit in arrays of their own:
	 * half the levels of a binary heap, and the comparisons read no entry. An entry's
	 * sequence (the order in which timers due at the same instant run) lives in the array
	 * alone.
	 */

	private void siftUp(int index, Entry entry, long sequence) {
		long due = entry.due;
		while (index > 0) {
			int parent = (index - 1) >>> 2;
			if (!before(due, sequence, this.dues[parent], this.sequences[parent])) {
				break;
			}
			move(parent, index);
			index = parent;
		}
		place(index, entry, sequence);
	}

	private void siftDown(int index, Entry entry, long sequence) {
		long due = entry.due;
		while (true) {
			int first = 4 * index + 1;
			if (first >= this.size) {
				break;
			}
			int least = first;
			int end = Math.min(first + 4, this.size);
			for (int child = first + 1; child < end; child++) {
				if (before(this.dues[child], this.sequences[child], this.dues[least], this.sequences[least])) {
					least = child;
				}
			}
			if (!before(this.dues[least], this.sequences[least], due, sequence)) {
				break;
			}
			move(least, index);
			index = least;
		}
		place(index, entry, sequence);
	}

	private void move(int from, int to) {
		Entry entry = this.heap[from];
		this.heap[to] = entry;
		this.dues[to] = this.dues[from];
		this.sequences[to] = this.sequences[from];
		entry.index = to;
	}

	private void place(int index, Entry entry, long sequence) {
		this.heap[index] = entry;
		this.dues[index] = entry.due;
		this.sequences[index] = sequence;
		entry.index = index;
	}

	private static boolean before(long due, long sequence, long otherDue, long otherSequence) {
		return (due != otherDue) ? due < otherDue : sequence < otherSequence;
	}

	/**
	 * A task at a due time: scheduled once ({@link #schedule}), or a timer re-armed in
	 * place ({@link #timer}).
	 */
	private final class Entry implements Cancellable, Timer {

		final Runnable task;

		long due;

		/** Its place on the heap, or -1 (scheduling thread only). */
		int index = -1;

		volatile boolean cancelled;

		Entry(Runnable task) {
			this.task = task;
		}

		@Override
		public void cancel() {
			this.cancelled = true;
			if (onSchedulingThread() && this.index >= 0) {
				removeAt(this.index);
			}
		}

		@Override
		public void arm(Instant at) {
			Assert.state(onSchedulingThread(), "A timer is armed on the scheduling thread");
			long due = ExecutorLeaseScheduler.this.clock.nanosAt(at);
			if (this.index >= 0) {
				this.due = due;
				rekey(this);
			}
			else if (ExecutorLeaseScheduler.this.phase == RUNNING) {
				this.due = due;
				push(this);
			}
		}

		@Override
		public void disarm() {
			Assert.state(onSchedulingThread(), "A timer is disarmed on the scheduling thread");
			if (this.index >= 0) {
				removeAt(this.index);
			}
		}

	}

	/**
	 * A call on a worker that can be called off: before it starts (it never runs and
	 * fails), or while it runs (its thread is interrupted, never after the call returned:
	 * the worker goes on to the next call with its interrupt flag clear).
	 */
	private static final class Interruptible<T> implements Runnable, Cancellable {

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
			catch (RuntimeException | Error ex) {
				logger.error("Leasekeeper call failed", ex);
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

		@Override
		public synchronized void cancel() {
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
