package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The instants at which a lease acts, as pure functions of a grant, the
 * {@link RenewalPolicy}, a source of randomness and the present. Re-derived from every
 * new grant: never the old expiry plus a fixed interval.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class RenewalSchedule {

	private static final String CAPPED_WARNING = "TTL value is capped accordingly";

	private final RenewalPolicy policy;

	/**
	 * Create a new schedule for the given policy.
	 * @param policy the policy
	 */
	public RenewalSchedule(RenewalPolicy policy) {
		Assert.notNull(policy, "'policy' must not be null");
		this.policy = policy;
	}

	/**
	 * Return the policy this schedule applies.
	 * @return the policy
	 */
	public RenewalPolicy policy() {
		return this.policy;
	}

	/**
	 * Return the first renewal instant of a new grant: drawn uniformly from
	 * {@code [(1 − firstRenewalSpread) × renewAt, renewAt]} of its window, or from
	 * {@code [renewAt − jitter, renewAt]} when that is wider, so that a fleet that
	 * obtained its grants in the same second renews at phases spread over the whole
	 * renewal period.
	 * @param grant the new grant, which must expire
	 * @param random the source of randomness
	 * @return the instant
	 */
	public Instant firstRenewal(Grant grant, RandomGenerator random) {
		double width = Math.max(this.policy.firstRenewalSpread() * this.policy.renewAt(), this.policy.jitter());
		return at(grant, this.policy.renewAt() - width * random.nextDouble());
	}

	/**
	 * Return the renewal instant of a renewed grant: {@code renewAt} of its window, drawn
	 * up to {@code jitter} early, never later.
	 * @param grant the renewed grant, which must expire
	 * @param random the source of randomness
	 * @return the instant
	 */
	public Instant nextRenewal(Grant grant, RandomGenerator random) {
		return at(grant, this.policy.renewAt() - this.policy.jitter() * random.nextDouble());
	}

	/**
	 * Return the instant at which a replacement for a grant at its ceiling is acquired:
	 * drawn uniformly between {@code now} and the renewal point of the grant's window, so
	 * that a fleet that reached its ceilings together does not rotate together.
	 * @param grant the last grant, which showed the ceiling
	 * @param random the source of randomness
	 * @param now the present
	 * @return the instant, never before {@code now}
	 */
	public Instant rotation(Grant grant, RandomGenerator random, Instant now) {
		Instant latest = at(grant, this.policy.renewAt());
		if (!latest.isAfter(now)) {
			return now;
		}
		long span = Duration.between(now, latest).toNanos();
		return now.plusNanos((long) (span * random.nextDouble()));
	}

	/**
	 * Return the instant after which a holder treats a grant expiring at {@code expiry}
	 * as gone.
	 * @param expiry the authoritative expiry
	 * @return {@code expiry − expiryBuffer}
	 */
	public Instant deadline(Instant expiry) {
		return expiry.minus(this.policy.expiryBuffer());
	}

	/**
	 * Return the timeout for an attempt started at {@code now}: the policy's attempt
	 * timeout, never longer than the time left before {@code deadline}.
	 * @param now the start of the attempt
	 * @param deadline the deadline, or {@code null} when there is none
	 * @return the timeout
	 */
	public Duration attemptTimeout(Instant now, @Nullable Instant deadline) {
		Duration timeout = this.policy.attemptTimeout();
		if (deadline == null) {
			return timeout;
		}
		Duration left = Duration.between(now, deadline);
		return (left.compareTo(timeout) < 0) ? left : timeout;
	}

	/**
	 * Start a new sequence of retry delays: exponential, from Spring's
	 * {@link ExponentialBackOff}.
	 * @return the execution
	 */
	public BackOffExecution startBackOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(this.policy.retryInitialInterval().toMillis(),
				this.policy.retryMultiplier());
		backOff.setMaxInterval(this.policy.retryMaxInterval().toMillis());
		return backOff.start();
	}

	/**
	 * Return the instant of the next attempt after a failure at {@code now}: the next
	 * back-off delay, jittered, and never later than the last instant at which an attempt
	 * can still finish before {@code deadline}.
	 * <p>
	 * Jitter is drawn from the given source rather than by {@link ExponentialBackOff}
	 * itself, whose jitter reads {@code Math.random()}: a seeded simulation must be
	 * reproducible.
	 * @param backOff the back-off of the current failure streak
	 * @param random the source of randomness
	 * @param now the instant of the failure
	 * @param deadline the deadline of the grant being renewed, or {@code null} when there
	 * is none
	 * @return the instant, or empty when no attempt fits before the deadline
	 */
	public Optional<Instant> retry(BackOffExecution backOff, RandomGenerator random, Instant now,
			@Nullable Instant deadline) {
		long delay = backOff.nextBackOff();
		if (delay == BackOffExecution.STOP) {
			delay = this.policy.retryMaxInterval().toMillis();
		}
		double factor = 1 + this.policy.retryJitter() * (2 * random.nextDouble() - 1);
		Instant candidate = now.plusNanos((long) (delay * 1_000_000L * factor));
		if (deadline == null) {
			return Optional.of(candidate);
		}
		Instant latestStart = deadline.minus(this.policy.attemptTimeout());
		if (!candidate.isAfter(latestStart)) {
			return Optional.of(candidate);
		}
		return now.isBefore(latestStart) ? Optional.of(latestStart) : Optional.empty();
	}

	/**
	 * Return whether a renewed grant shows the ceiling: granted less than the increment
	 * asked for, or, when none was asked for, less than the previous full grant, or the
	 * store's "capped" warning.
	 * @param renewed the renewed grant
	 * @param increment the increment asked for, or {@code null}
	 * @param previousFullTtl the TTL of the last grant that was not capped, or
	 * {@code null}
	 * @return whether the grant is capped by a max TTL
	 */
	public boolean showsCeiling(Grant renewed, @Nullable Duration increment, @Nullable Duration previousFullTtl) {
		if (renewed.warnings().stream().anyMatch((warning) -> warning.contains(CAPPED_WARNING))) {
			return true;
		}
		if (increment != null && !increment.isZero()) {
			// Vault takes the increment in whole seconds
			return renewed.ttl().compareTo(Duration.ofSeconds(increment.toSeconds())) < 0;
		}
		return previousFullTtl != null && renewed.ttl().compareTo(previousFullTtl) < 0;
	}

	/**
	 * Return whether a grant's window is too short for the policy's retry budget: the
	 * time after {@code renewAt} does not cover the expiry buffer, an attempt and the
	 * first retry delay. Such a lease is not at its ceiling; it is a configuration to
	 * warn about.
	 * @param grant the grant
	 * @return whether the window is too short
	 */
	public boolean windowTooShort(Grant grant) {
		Duration budget = Duration.ofNanos((long) (grant.ttl().toNanos() * (1 - this.policy.renewAt())));
		Duration needed = this.policy.expiryBuffer()
			.plus(this.policy.attemptTimeout())
			.plus(this.policy.retryInitialInterval());
		return grant.expires() && budget.compareTo(needed) < 0;
	}

	private Instant at(Grant grant, double fraction) {
		return grant.obtainedAt().plusNanos((long) (grant.ttl().toNanos() * Math.max(0, fraction)));
	}

}
