package dev.leasekeeper.core;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An attempt that waited for a worker thread past its deadline is never sent: after an
 * outage with hanging connections, the calls the engine already gave up on do not reach
 * Vault when the threads free up.
 */
class AbandonedAttemptTests {

	@Test
	void anAttemptQueuedPastItsDeadlineIsNotSentWhenAThreadFreesUp() throws Exception {
		CountDownLatch hang = new CountDownLatch(1);
		AtomicInteger queuedRenewals = new AtomicInteger();
		RenewalPolicy policy = RenewalPolicy.builder()
			.firstRenewalSpread(0)
			.attemptTimeout(Duration.ofMillis(200))
			.retryInitialInterval(Duration.ofMinutes(1))
			.retryMaxInterval(Duration.ofMinutes(2))
			.build();
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1)) {
			// a call that does not heed the interrupt it gets when it is abandoned (a
			// blocking read that ignores it) keeps the one worker
			ManagedLease hanging = ManagedLease.builder("hanging", new Source(() -> {
				long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
				while (hang.getCount() > 0 && System.nanoTime() < end) {
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
				}
				return null;
			}), scheduler).policy(policy).build();
			RecordingListener queuedEvents = new RecordingListener();
			ManagedLease queued = ManagedLease.builder("queued", new Source(() -> {
				queuedRenewals.incrementAndGet();
				return null;
			}), scheduler).policy(policy).listener(queuedEvents).build();
			hanging.start();
			queued.start();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> hanging.current().generation() == 1 && queued.current().generation() == 1);
			// the one worker hangs on a renewal; the other lease's renewal waits behind
			// it
			hanging.renewNow();
			await().atMost(Duration.ofSeconds(10)).until(() -> hanging.current().state() == LeaseState.RENEWING);
			queued.renewNow();
			await().atMost(Duration.ofSeconds(10)).until(() -> queuedEvents.count("failed") == 1);
			hang.countDown();
			// a call queued behind the abandoned one runs after it: once it has, nothing
			// was sent for the abandoned attempt
			CountDownLatch drained = new CountDownLatch(1);
			scheduler.call(() -> Boolean.TRUE, (result, failure) -> drained.countDown());
			assertThat(drained.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(queuedRenewals).hasValue(0);
		}
	}

	/** A store whose renewals do what they are told, then renew for an hour. */
	private static final class Source implements LeaseSource {

		private final java.util.concurrent.Callable<@Nullable Object> onRenew;

		private final AtomicInteger ids = new AtomicInteger();

		Source(java.util.concurrent.Callable<@Nullable Object> onRenew) {
			this.onRenew = onRenew;
		}

		@Override
		public Grant acquire() {
			return Grant.of("lease/" + this.ids.incrementAndGet(), Duration.ofHours(1), true, java.time.Instant.now());
		}

		@Override
		public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
			try {
				this.onRenew.call();
			}
			catch (Exception ex) {
				throw LeaseSourceException.transientFailure("interrupted", "interrupted", ex);
			}
			return Grant.of(current.leaseId(), Duration.ofHours(1), true, java.time.Instant.now());
		}

		@Override
		public void revoke(Grant current) {
		}

	}

}
