package dev.leasekeeper.core;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

/**
 * Time for the engine: a monotonic clock, tasks at instants on one shared scheduling
 * thread, and blocking calls on worker threads whose outcome comes back to the scheduling
 * thread. All lease state changes on the scheduling thread, so a lease needs no locks and
 * no thread of its own.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public interface LeaseScheduler {

	/**
	 * Return the clock the engine reads: monotonic, so that a wall-clock jump changes no
	 * schedule.
	 * @return the clock
	 */
	Clock clock();

	/**
	 * Return the present.
	 * @return {@code clock().instant()}
	 */
	default Instant now() {
		return clock().instant();
	}

	/**
	 * Run a task on the scheduling thread at an instant (at once if it is past).
	 * @param at when to run it
	 * @param task the task
	 * @return a handle to call it off
	 */
	Cancellable schedule(Instant at, Runnable task);

	/**
	 * Create a timer for one task, armed and re-armed at any instant: a lease's one
	 * timer, moved by each transition without a new task each time. Armed and disarmed on
	 * the scheduling thread only.
	 * @param task what the timer runs when it fires
	 * @return the timer, not armed
	 */
	default Timer timer(Runnable task) {
		return new Timer() {

			private @Nullable Cancellable scheduled;

			@Override
			public void arm(Instant at) {
				disarm();
				this.scheduled = schedule(at, () -> {
					this.scheduled = null;
					task.run();
				});
			}

			@Override
			public void disarm() {
				Cancellable current = this.scheduled;
				this.scheduled = null;
				if (current != null) {
					current.cancel();
				}
			}

		};
	}

	/**
	 * Run a blocking call on a worker thread and pass its outcome to {@code then} on the
	 * scheduling thread. Calling it off interrupts the call if it is running (a request
	 * to Vault, a pool's warm-up) and keeps it from starting if it has not: either way
	 * {@code then} still hears exactly one outcome, a failure if the call did not finish.
	 * @param <T> the type of the result
	 * @param call the call
	 * @param then receives the result, or the exception the call threw
	 * @return a handle to call it off
	 */
	<T> Cancellable call(Callable<T> call, BiConsumer<@Nullable T, @Nullable Exception> then);

	/**
	 * Run a call on the calling thread and hand its result, or what it threw, to
	 * {@code outcome}: an {@link Error} (a consumer's, say) is the call's failure too, so
	 * that the lease always hears back. For implementations of {@link #call}.
	 * @param <T> the type of the result
	 * @param call the call
	 * @param outcome receives the result, or the failure
	 */
	static <T> void complete(Callable<T> call, BiConsumer<@Nullable T, @Nullable Exception> outcome) {
		T result = null;
		Exception failure = null;
		try {
			result = call.call();
		}
		catch (Exception ex) {
			failure = ex;
		}
		catch (Error ex) {
			failure = new java.util.concurrent.ExecutionException(ex);
		}
		outcome.accept(result, failure);
	}

	/**
	 * Return the wall clock, the time Vault's leases age by: compared with
	 * {@link #clock()} to notice a suspend (the monotonic clock stands still while the
	 * machine sleeps or a VM is paused).
	 * @return the wall clock
	 */
	default Clock wallClock() {
		return Clock.systemUTC();
	}

	/**
	 * A re-armable timer of one task ({@link #timer}).
	 */
	interface Timer {

		/**
		 * Arm the timer at an instant (at once if it is past), in place of the instant it
		 * was armed at.
		 * @param at when the task runs
		 */
		void arm(Instant at);

		/**
		 * Disarm the timer if it is armed.
		 */
		void disarm();

	}

}
