package dev.leasekeeper.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.core.RotationCause;

/**
 * Leasekeeper's meters, registered up front for every declared lease so that dashboards
 * show zero before the first event. The signal to alarm on is {@link #RENEWAL_REMAINING}:
 * how much of the window was left when a renewal succeeded, not how many succeeded.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class LeaseMetrics implements MeterBinder {

	/** Counter of renewal attempts, tagged {@code lease} and {@code outcome}. */
	public static final String RENEWALS = "leasekeeper.renewals";

	/**
	 * Timer of successful renewals, from the request to the answer, tagged {@code lease},
	 * {@code outcome}.
	 */
	public static final String RENEWAL_DURATION = "leasekeeper.renewal.duration";

	/** Distribution of the seconds left on the window at each successful renewal. */
	public static final String RENEWAL_REMAINING = "leasekeeper.renewal.remaining";

	/** Gauge of the seconds the credential is still vouched for. */
	public static final String LEASE_REMAINING = "leasekeeper.lease.remaining";

	/** Gauge, 1 when no renewal succeeded for longer than one window. */
	public static final String LEASE_STALE = "leasekeeper.lease.stale";

	/** Counter of failed attempts that are retried. */
	public static final String RETRIES = "leasekeeper.retries";

	/** Counter of new generations, tagged {@code cause}. */
	public static final String ROTATIONS = "leasekeeper.rotations";

	/** Counter of new logins of the token. */
	public static final String REAUTHENTICATIONS = "leasekeeper.reauthentications";

	/**
	 * Timer of pool swaps, from building the new pool to serving from it, tagged
	 * {@code lease}.
	 */
	public static final String POOL_SWAP_DURATION = "leasekeeper.pool.swap.duration";

	/** Counter of leases lost. */
	public static final String LOST = "leasekeeper.leases.lost";

	/**
	 * Timer of how late a lease's timer fired, recorded when it fired later than its
	 * tolerance (a pause, a suspend, an overloaded host), tagged {@code lease}.
	 */
	public static final String TIMER_LATENESS = "leasekeeper.timer.lateness";

	/** The values of the {@code outcome} tag. */
	public static final List<String> OUTCOMES = List.of("renewed", "capped", "transient-failure", "permanent-failure",
			"unauthorized");

	/** The values of the {@code cause} tag. */
	public static final List<String> CAUSES = List.of("ceiling", "refused", "token", "lost", "manual", "rejected",
			"static_rotation", "published");

	private final Map<String, Supplier<LeaseSnapshot>> leases;

	private final Supplier<Instant> clock;

	private final Map<String, LeaseMeters> meters = new ConcurrentHashMap<>();

	/**
	 * Create the meters of the given leases.
	 * @param leases each lease's name and how to read it now
	 * @param clock the engine's clock
	 */
	public LeaseMetrics(Map<String, Supplier<LeaseSnapshot>> leases, Supplier<Instant> clock) {
		this.leases = Map.copyOf(leases);
		this.clock = clock;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.leases.forEach((name, lease) -> this.meters.put(name, new LeaseMeters(registry, name, lease)));
	}

	/**
	 * Return the listener that counts what happens to a lease.
	 * @param leaseName the lease's name
	 * @return the listener
	 */
	public LeaseListener listenerFor(String leaseName) {
		return new LeaseListener() {

			@Override
			public void onRenewed(LeaseRenewal renewal) {
				withMeters(leaseName, (meters) -> meters.renewed(renewal));
			}

			@Override
			public void onFailure(LeaseSnapshot lease, LeaseSourceException failure, int attempt,
					@Nullable Instant nextAttemptAt) {
				withMeters(leaseName, (meters) -> meters.failed(failure, nextAttemptAt));
			}

			@Override
			public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
				withMeters(leaseName, (meters) -> meters.rotated(cause));
			}

			@Override
			public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
				withMeters(leaseName, (meters) -> meters.lost.increment());
			}

			@Override
			public void onTimerLate(LeaseSnapshot lease, Duration lateness) {
				withMeters(leaseName, (meters) -> meters.lateness.record(lateness));
			}

		};
	}

	private void withMeters(String leaseName, java.util.function.Consumer<LeaseMeters> action) {
		LeaseMeters leaseMeters = this.meters.get(leaseName);
		if (leaseMeters != null) {
			action.accept(leaseMeters);
		}
	}

	private final class LeaseMeters {

		private final Map<String, Counter> renewals = new ConcurrentHashMap<>();

		private final Map<String, Timer> durations = new ConcurrentHashMap<>();

		private final Map<String, Counter> rotations = new ConcurrentHashMap<>();

		private final DistributionSummary remainingAtRenewal;

		private final Counter retries;

		private final Counter reauthentications;

		private final Counter lost;

		private final Timer lateness;

		private final boolean token;

		private volatile @Nullable Instant lastSuccess;

		LeaseMeters(MeterRegistry registry, String name, Supplier<LeaseSnapshot> lease) {
			this.token = "vault-token".equals(name);
			for (String outcome : OUTCOMES) {
				this.renewals.put(outcome, counter(registry, RENEWALS, "Renewal attempts by outcome", "attempts",
						"lease", name, "outcome", outcome));
			}
			for (String outcome : List.of("renewed", "capped")) {
				this.durations.put(outcome,
						Timer.builder(RENEWAL_DURATION)
							.description("Time from a renewal request to Vault's answer")
							.tags("lease", name, "outcome", outcome)
							.register(registry));
			}
			for (String cause : CAUSES) {
				this.rotations.put(cause, counter(registry, ROTATIONS, "New generations of the lease by cause",
						"rotations", "lease", name, "cause", cause));
			}
			this.remainingAtRenewal = DistributionSummary.builder(RENEWAL_REMAINING)
				.description("Seconds left on the window when a renewal succeeded")
				.baseUnit("seconds")
				.tags("lease", name)
				.register(registry);
			this.retries = counter(registry, RETRIES, "Failed attempts that are retried", "attempts", "lease", name);
			this.reauthentications = counter(registry, REAUTHENTICATIONS, "New logins of the Vault token", "logins",
					"lease", name);
			this.lost = counter(registry, LOST, "Leases lost: expired or refused", "leases", "lease", name);
			this.lateness = Timer.builder(TIMER_LATENESS)
				.description("How late a timer of the lease fired, when later than its tolerance")
				.tags("lease", name)
				.register(registry);
			Gauge.builder(LEASE_REMAINING, lease, (current) -> remaining(current.get()))
				.description("Seconds the credential is still vouched for")
				.baseUnit("seconds")
				.tags("lease", name)
				.register(registry);
			Gauge.builder(LEASE_STALE, lease, (current) -> stale(current.get()) ? 1 : 0)
				.description("1 when no renewal succeeded for longer than one window")
				.tags("lease", name)
				.register(registry);
		}

		private static Counter counter(MeterRegistry registry, String name, String description, String unit,
				String... tags) {
			return Counter.builder(name).description(description).baseUnit(unit).tags(tags).register(registry);
		}

		void renewed(LeaseRenewal renewal) {
			String outcome = renewal.capped() ? "capped" : "renewed";
			this.renewals.get(outcome).increment();
			Instant sent = renewal.lease().obtainedAt();
			if (sent != null) {
				Duration took = Duration.between(sent, LeaseMetrics.this.clock.get());
				this.durations.get(outcome).record(Math.max(0, took.toNanos()), TimeUnit.NANOSECONDS);
			}
			this.remainingAtRenewal.record(renewal.remainingAtAttempt().toMillis() / 1000.0);
			this.lastSuccess = LeaseMetrics.this.clock.get();
		}

		void failed(LeaseSourceException failure, @Nullable Instant nextAttemptAt) {
			String outcome = switch (failure.getKind()) {
				case TRANSIENT -> "transient-failure";
				case PERMANENT -> "permanent-failure";
				case UNAUTHORIZED -> "unauthorized";
			};
			this.renewals.get(outcome).increment();
			if (nextAttemptAt != null && failure.getKind() == LeaseSourceException.Kind.TRANSIENT) {
				this.retries.increment();
			}
		}

		void rotated(RotationCause cause) {
			this.rotations.get(cause.name().toLowerCase(java.util.Locale.ROOT)).increment();
			if (this.token) {
				this.reauthentications.increment();
			}
			this.lastSuccess = LeaseMetrics.this.clock.get();
		}

		private double remaining(LeaseSnapshot lease) {
			if (!lease.state().holdsGrant()) {
				return 0;
			}
			if (lease.validUntil() == null) {
				return Double.POSITIVE_INFINITY;
			}
			return Math.max(0, Duration.between(LeaseMetrics.this.clock.get(), lease.validUntil()).toMillis() / 1000.0);
		}

		private boolean stale(LeaseSnapshot lease) {
			if (lease.ttl() == null || lease.ttl().isZero()) {
				return false;
			}
			Instant since = (this.lastSuccess != null) ? this.lastSuccess : lease.obtainedAt();
			return since != null && Duration.between(since, LeaseMetrics.this.clock.get()).compareTo(lease.ttl()) > 0;
		}

	}

}
