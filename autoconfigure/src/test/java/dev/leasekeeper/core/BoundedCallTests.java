package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lease's calls on the production scheduler are bounded: an abandoned renewal is
 * interrupted and the next one waits for it, so a lease never has two calls in flight; a
 * consumer that does not take a new grant in time is interrupted when the grant it
 * replaces runs out.
 */
class BoundedCallTests {

	@Test
	void aHungRenewalIsInterruptedAtItsDeadlineAndALeaseNeverHasTwoCallsInFlight() {
		RenewalPolicy policy = RenewalPolicy.builder()
			.firstRenewalSpread(0)
			.attemptTimeout(Duration.ofMillis(200))
			.retryInitialInterval(Duration.ofMillis(50))
			.retryMaxInterval(Duration.ofMillis(100))
			.build();
		HangingRenewals source = new HangingRenewals();
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(4)) {
			ManagedLease lease = ManagedLease.builder("hanging", source, scheduler).policy(policy).build();
			lease.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> lease.current().generation() == 1);
			source.hang.set(true);
			lease.renewNow();
			await().atMost(Duration.ofSeconds(20)).until(() -> source.interrupted.get() >= 5);
			// four workers, retries every 50-100 ms, attempts of 200 ms: without the
			// interrupt, abandoned calls pile up on the workers
			assertThat(source.mostAtOnce).hasValue(1);
			source.hang.set(false);
			await().atMost(Duration.ofSeconds(10)).until(() -> lease.current().state() == LeaseState.ACTIVE);
			assertThat(lease.current().generation()).isEqualTo(1);
		}
	}

	@Test
	void aConsumerThatHangsOnANewGrantIsInterruptedWhenTheGrantItReplacesRunsOut() {
		AtomicInteger interrupted = new AtomicInteger();
		AtomicBoolean hangOnce = new AtomicBoolean(true);
		LeaseListener consumer = new LeaseListener() {
			@Override
			public void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) throws Exception {
				if (previous != null && hangOnce.getAndSet(false)) {
					try {
						Thread.sleep(TimeUnit.MINUTES.toMillis(1));
					}
					catch (InterruptedException ex) {
						interrupted.incrementAndGet();
						throw ex;
					}
				}
			}
		};
		HangingRenewals source = new HangingRenewals(Duration.ofSeconds(4));
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(4)) {
			ManagedLease lease = ManagedLease.builder("pool", source, scheduler).listener(consumer).build();
			lease.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> lease.current().generation() == 1);
			Instant validUntil = lease.current().validUntil();
			lease.rotateNow(RotationCause.MANUAL);
			// held at most until generation 1 runs out (4 s), never the consumer's minute
			await().atMost(Duration.ofSeconds(15))
				.until(() -> lease.current().generation() >= 2 && lease.current().state() == LeaseState.ACTIVE);
			assertThat(interrupted).hasValue(1);
			assertThat(scheduler.now()).isAfterOrEqualTo(validUntil);
			assertThat(source.revoked.get()).as("the rejected candidate").isGreaterThanOrEqualTo(1);
		}
	}

	/** A store whose renewals hang until interrupted while told to. */
	private static final class HangingRenewals implements LeaseSource {

		final AtomicBoolean hang = new AtomicBoolean();

		final AtomicInteger interrupted = new AtomicInteger();

		final AtomicInteger inFlight = new AtomicInteger();

		final AtomicInteger mostAtOnce = new AtomicInteger();

		final AtomicInteger revoked = new AtomicInteger();

		private final AtomicInteger ids = new AtomicInteger();

		private final Duration ttl;

		HangingRenewals() {
			this(Duration.ofHours(1));
		}

		HangingRenewals(Duration ttl) {
			this.ttl = ttl;
		}

		@Override
		public Grant acquire() {
			return Grant.of("lease/" + this.ids.incrementAndGet(), this.ttl, true, Instant.now());
		}

		@Override
		public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
			this.mostAtOnce.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
			try {
				while (this.hang.get()) {
					// as a blocking read on a connection that never answers: only an
					// interrupt ends it
					Thread.sleep(TimeUnit.SECONDS.toMillis(30));
				}
				return Grant.of(current.leaseId(), this.ttl, true, Instant.now());
			}
			catch (InterruptedException ex) {
				this.interrupted.incrementAndGet();
				throw LeaseSourceException.transientFailure("io", "interrupted", ex);
			}
			finally {
				this.inFlight.decrementAndGet();
			}
		}

		@Override
		public void revoke(Grant current) {
			this.revoked.incrementAndGet();
		}

	}

}
