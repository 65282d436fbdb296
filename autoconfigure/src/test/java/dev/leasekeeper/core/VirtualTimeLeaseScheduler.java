package dev.leasekeeper.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link LeaseScheduler} in virtual time, for tests and simulations: nothing runs until
 * the caller advances the clock, and then every due task runs on the caller's thread in
 * instant order. A call runs at once (the store sees the request when it is sent) and its
 * outcome is delivered after a latency the caller sets.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class VirtualTimeLeaseScheduler implements LeaseScheduler {

	private static final long LIVELOCK = 1_000_000;

	private final PriorityQueue<Task> queue = new PriorityQueue<>();

	private final VirtualClock clock;

	private Duration unseen = Duration.ZERO;

	private long sequence;

	private Supplier<Duration> callLatency = () -> Duration.ZERO;

	private @Nullable RandomGenerator answerOrder;

	/**
	 * Create a new scheduler whose clock starts at {@code start}.
	 * @param start the first instant
	 */
	public VirtualTimeLeaseScheduler(Instant start) {
		this.clock = new VirtualClock(start);
	}

	@Override
	public Clock clock() {
		return this.clock;
	}

	@Override
	public Cancellable schedule(Instant at, Runnable task) {
		Task entry = new Task(at.isBefore(this.clock.now) ? this.clock.now : at, this.sequence++, task);
		this.queue.add(entry);
		return () -> entry.cancelled = true;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The call runs at once: the store sees it when it is sent. Calling it off before its
	 * answer came back is an interrupted request: the answer is lost and the caller hears
	 * a failure at once.
	 */
	@Override
	public <T> Cancellable call(Callable<T> call, BiConsumer<@Nullable T, @Nullable Exception> then) {
		Task[] answer = new Task[1];
		LeaseScheduler.complete(call, (result, failure) -> {
			Instant at = this.clock.now.plus(this.callLatency.get());
			// answers due at the same instant come back in any order when asked for
			long order = (this.answerOrder != null) ? this.answerOrder.nextLong() : this.sequence++;
			answer[0] = new Task(at, order, () -> then.accept(result, failure));
			this.queue.add(answer[0]);
		});
		return () -> {
			Task pending = answer[0];
			if (pending != null && !pending.cancelled && this.queue.remove(pending)) {
				pending.cancelled = true;
				this.queue.add(new Task(this.clock.now, this.sequence++, () -> then.accept(null,
						new java.util.concurrent.CancellationException("interrupted before its answer came back"))));
			}
		};
	}

	/**
	 * Deliver the answers of calls that come back at the same instant in an order drawn
	 * from {@code random}, instead of the order in which they were sent.
	 * @param random the source of the order, or {@code null} for the order of sending
	 */
	public void setAnswerOrder(@Nullable RandomGenerator random) {
		this.answerOrder = random;
	}

	/**
	 * Set how long each call's outcome takes to come back, asked once per call.
	 * @param callLatency the latency of each call
	 */
	public void setCallLatency(Supplier<Duration> callLatency) {
		Assert.notNull(callLatency, "'callLatency' must not be null");
		this.callLatency = callLatency;
	}

	/**
	 * Advance the clock by {@code duration}, running every task that falls due on the
	 * way.
	 * @param duration how far to advance
	 */
	public void advanceBy(Duration duration) {
		advanceTo(this.clock.now.plus(duration));
	}

	/**
	 * Advance the clock to {@code target}, running every task that falls due on the way,
	 * in order.
	 * @param target the instant to advance to
	 */
	public void advanceTo(Instant target) {
		Task next;
		Instant instant = null;
		long atInstant = 0;
		while ((next = this.queue.peek()) != null && !next.at.isAfter(target)) {
			this.queue.poll();
			if (next.at.equals(instant)) {
				if (++atInstant > LIVELOCK) {
					// a loop of tasks that never lets time pass: a bug to report, not to
					// hang on
					throw new IllegalStateException("More than " + LIVELOCK + " tasks at " + instant);
				}
			}
			else {
				instant = next.at;
				atInstant = 0;
			}
			if (!next.cancelled) {
				// a task that fell due during a stall runs late, when the stall ends
				if (next.at.isAfter(this.clock.now)) {
					this.clock.now = next.at;
				}
				next.task.run();
			}
		}
		if (target.isAfter(this.clock.now)) {
			this.clock.now = target;
		}
	}

	/**
	 * Run the tasks that are due now, and those they schedule for now.
	 */
	public void runDue() {
		advanceTo(this.clock.now);
	}

	/**
	 * Move the clock forward without running anything, as a stalled process (a long GC
	 * pause, a {@code SIGSTOP}) does: every task that fell due meanwhile runs late, at
	 * the next advance, with the clock reading the end of the stall.
	 * @param duration how long the stall lasts
	 */
	public void stall(Duration duration) {
		this.clock.now = this.clock.now.plus(duration);
	}

	/**
	 * Suspend the machine: the wall clock (and Vault) move on by {@code duration}, the
	 * engine's clock does not.
	 * @param duration how long the suspend lasts
	 */
	public void suspend(Duration duration) {
		this.unseen = this.unseen.plus(duration);
	}

	@Override
	public Clock wallClock() {
		return Clock.fixed(this.clock.now.plus(this.unseen), ZoneOffset.UTC);
	}

	/**
	 * Return the wall-clock instant: the engine's clock plus the time a suspend hid from
	 * it.
	 * @return the wall-clock instant
	 */
	public Instant wallNow() {
		return this.clock.now.plus(this.unseen);
	}

	/**
	 * Return how many tasks are queued and not called off.
	 * @return the count
	 */
	public int pendingTasks() {
		return (int) this.queue.stream().filter((task) -> !task.cancelled).count();
	}

	private static final class Task implements Comparable<Task> {

		private final Instant at;

		private final long sequence;

		private final Runnable task;

		private boolean cancelled;

		Task(Instant at, long sequence, Runnable task) {
			this.at = at;
			this.sequence = sequence;
			this.task = task;
		}

		@Override
		public int compareTo(Task other) {
			int byTime = this.at.compareTo(other.at);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, other.sequence);
		}

	}

	private static final class VirtualClock extends Clock {

		private Instant now;

		VirtualClock(Instant now) {
			this.now = now;
		}

		@Override
		public Instant instant() {
			return this.now;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			throw new UnsupportedOperationException("VirtualClock is always UTC");
		}

	}

}
