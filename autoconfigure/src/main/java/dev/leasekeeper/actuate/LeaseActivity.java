package dev.leasekeeper.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.CeilingAction;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.core.RotationCause;

/**
 * What each lease did last, for the endpoint and the health indicator: the last outcome
 * and when, the margin left at the last renewal, the ceiling if known, and when the
 * current failure streak began.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class LeaseActivity {

	private final Map<String, Entry> entries = new ConcurrentHashMap<>();

	private final Supplier<Instant> clock;

	/**
	 * Create a new record of activity.
	 * @param clock the engine's clock
	 */
	public LeaseActivity(Supplier<Instant> clock) {
		this.clock = clock;
	}

	/**
	 * Return what a lease did last.
	 * @param leaseName the lease's name
	 * @return the entry, empty when it did nothing yet
	 */
	public Entry of(String leaseName) {
		return this.entries.computeIfAbsent(leaseName, (name) -> new Entry());
	}

	/**
	 * Return the listener that records a lease's activity.
	 * @param leaseName the lease's name
	 * @return the listener
	 */
	public LeaseListener listenerFor(String leaseName) {
		Entry entry = of(leaseName);
		return new LeaseListener() {

			@Override
			public void onAcquired(LeaseSnapshot lease) {
				entry.outcome("acquired", null);
			}

			@Override
			public void onRenewed(LeaseRenewal renewal) {
				entry.outcome(renewal.capped() ? "capped" : "renewed", renewal.remainingAtAttempt());
			}

			@Override
			public void onFailure(LeaseSnapshot lease, LeaseSourceException failure, int attempt,
					@Nullable Instant nextAttemptAt) {
				if (entry.failingSince == null) {
					entry.failingSince = LeaseActivity.this.clock.get();
				}
				entry.lastOutcome = failure.getErrorClass();
				entry.lastOutcomeAt = LeaseActivity.this.clock.get();
			}

			@Override
			public void onCeilingReached(LeaseSnapshot lease, Instant hardExpiry, CeilingAction action) {
				entry.ceiling = hardExpiry;
			}

			@Override
			public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
				entry.outcome("rotated", null);
				entry.ceiling = null;
			}

			@Override
			public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
				entry.lastOutcome = "lost";
				entry.lastOutcomeAt = LeaseActivity.this.clock.get();
			}

		};
	}

	/**
	 * What one lease did last.
	 */
	public final class Entry {

		private volatile @Nullable String lastOutcome;

		private volatile @Nullable Instant lastOutcomeAt;

		private volatile @Nullable Duration remainingAtLastRenewal;

		private volatile @Nullable Instant ceiling;

		private volatile @Nullable Instant failingSince;

		private void outcome(String outcome, @Nullable Duration remaining) {
			this.lastOutcome = outcome;
			this.lastOutcomeAt = LeaseActivity.this.clock.get();
			if (remaining != null) {
				this.remainingAtLastRenewal = remaining;
			}
			this.failingSince = null;
		}

		/**
		 * Return the last outcome: acquired, renewed, capped, rotated, lost, or an error
		 * class.
		 * @return the outcome, or {@code null}
		 */
		public @Nullable String getLastOutcome() {
			return this.lastOutcome;
		}

		/**
		 * Return when the last outcome happened.
		 * @return the instant, or {@code null}
		 */
		public @Nullable Instant getLastOutcomeAt() {
			return this.lastOutcomeAt;
		}

		/**
		 * Return the margin left when the last renewal succeeded.
		 * @return the margin, or {@code null}
		 */
		public @Nullable Duration getRemainingAtLastRenewal() {
			return this.remainingAtLastRenewal;
		}

		/**
		 * Return the hard expiry of the current generation, once a renewal revealed it.
		 * @return the ceiling, or {@code null}
		 */
		public @Nullable Instant getCeiling() {
			return this.ceiling;
		}

		/**
		 * Return when the current streak of failures began.
		 * @return the instant, or {@code null} when the last attempt succeeded
		 */
		public @Nullable Instant getFailingSince() {
			return this.failingSince;
		}

	}

}
