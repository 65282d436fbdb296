package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
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
 * <p>
 * <strong>The budget scales with the window.</strong> The policy's expiry buffer, attempt
 * timeout and retry intervals are upper bounds: for a grant of window {@code W} each is
 * capped by a fraction of it ({@link Budget}: the buffer by 10 %, the attempt timeout by
 * 8 %, the first retry delay by 5 % and the longest by 10 % of {@code W}), so that with
 * default properties a grant of a few seconds renews at {@code renewAt} of its window
 * with room after it for an attempt, a retry delay and a second attempt. Only where even
 * that does not fit (a {@code renewAt} close to 1) is the renewal planned earlier.
 * Attempts go on until the validity ends ({@code expiry − buffer}), the last one just
 * before it. The promise that follows: no loss for an outage shorter than
 * {@code (1 − renewAt) × W − buffer − retryMax}, all three taken from the budget.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class RenewalSchedule {

	/** The shortest window with which Leasekeeper promises to keep a lease alive. */
	public static final Duration SHORTEST_WINDOW = Duration.ofSeconds(3);

	private static final String CAPPED_WARNING = "TTL value is capped accordingly";

	private static final double BUFFER_SHARE = 0.10;

	private static final double ATTEMPT_SHARE = 0.08;

	private static final double FIRST_RETRY_SHARE = 0.05;

	private static final double LONGEST_RETRY_SHARE = 0.10;

	private static final Duration LONGEST_REFUSAL_DELAY = Duration.ofMinutes(5);

	private final RenewalPolicy policy;

	private @Nullable CachedBudget cachedBudget;

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
	 * Return the budget for a grant of the given window: the policy's values, each capped
	 * by its share of the window.
	 * @param window the granted window, or {@code null} when unknown (the policy's
	 * values)
	 * @return the budget
	 */
	public Budget budget(@Nullable Duration window) {
		// a lease asks for the same window's budget several times per renewal
		CachedBudget cached = this.cachedBudget;
		if (cached != null && (cached.window() == window || Objects.equals(cached.window(), window))) {
			return cached.budget();
		}
		Budget budget = computeBudget(window);
		this.cachedBudget = new CachedBudget(window, budget);
		return budget;
	}

	private Budget computeBudget(@Nullable Duration window) {
		RenewalPolicy p = this.policy;
		if (window == null || window.isZero()) {
			return new Budget(p.expiryBuffer(), p.attemptTimeout(), p.retryInitialInterval(), p.retryMaxInterval());
		}
		Duration longest = min(p.retryMaxInterval(), share(window, LONGEST_RETRY_SHARE));
		return new Budget(min(p.expiryBuffer(), share(window, BUFFER_SHARE)),
				min(p.attemptTimeout(), share(window, ATTEMPT_SHARE)),
				min(min(p.retryInitialInterval(), share(window, FIRST_RETRY_SHARE)), longest), longest);
	}

	/**
	 * Return the fraction of a window at which its grant is renewed: {@code renewAt},
	 * unless what follows it cannot hold the buffer, two attempts and the first retry
	 * delay, in which case as much earlier as that needs.
	 * @param window the window
	 * @return the fraction
	 */
	public double renewFraction(Duration window) {
		Budget budget = budget(window);
		double needed = (budget.expiryBuffer().toNanos() + 2 * budget.attemptTimeout().toNanos()
				+ budget.retryInitialInterval().toNanos()) / (double) window.toNanos();
		return Math.min(this.policy.renewAt(), 1 - needed);
	}

	/**
	 * Return the first renewal instant of a new grant: drawn uniformly from
	 * {@code [(1 − firstRenewalSpread) × r, r]} of its window ({@code r} the
	 * {@linkplain #renewFraction renewal fraction}), or from {@code [r − jitter, r]} when
	 * that is wider, so that a fleet that obtained its grants in the same second renews
	 * at phases spread over the whole renewal period.
	 * @param grant the new grant, which must expire
	 * @param random the source of randomness
	 * @return the instant
	 */
	public Instant firstRenewal(Grant grant, RandomGenerator random) {
		double renewAt = renewFraction(grant.ttl());
		double width = Math.max(this.policy.firstRenewalSpread() * renewAt, this.policy.jitter());
		return at(grant, renewAt - width * random.nextDouble());
	}

	/**
	 * Return the renewal instant of a renewed grant: the renewal fraction of its window,
	 * drawn up to {@code jitter} early, never later.
	 * @param grant the renewed grant, which must expire
	 * @param random the source of randomness
	 * @return the instant
	 */
	public Instant nextRenewal(Grant grant, RandomGenerator random) {
		return at(grant, renewFraction(grant.ttl()) - this.policy.jitter() * random.nextDouble());
	}

	/**
	 * Return the instant until which a holder vouches for a grant expiring at
	 * {@code expiry}.
	 * @param expiry the authoritative expiry
	 * @param window the grant's window
	 * @return {@code expiry} less the budget's buffer
	 */
	public Instant validUntil(Instant expiry, Duration window) {
		return expiry.minus(budget(window).expiryBuffer());
	}

	/**
	 * Return the timeout for an attempt started at {@code now}: the budget's attempt
	 * timeout, never longer than the time left before {@code deadline}.
	 * @param now the start of the attempt
	 * @param deadline the deadline, or {@code null} when there is none
	 * @param window the window of the grant the attempt is for, or {@code null}
	 * @return the timeout, at least one millisecond
	 */
	public Duration attemptTimeout(Instant now, @Nullable Instant deadline, @Nullable Duration window) {
		Duration timeout = budget(window).attemptTimeout();
		if (deadline != null) {
			timeout = min(timeout, Duration.between(now, deadline));
		}
		return max(timeout, Duration.ofMillis(1));
	}

	/**
	 * Return the instant of the next attempt after the {@code failures}-th failure in a
	 * row at {@code now}: the exponential back-off delay of Spring's
	 * {@link ExponentialBackOff} over the budget's intervals, jittered and never longer
	 * than the budget's longest interval; attempts go on until the validity ends, the
	 * last one just before {@code validUntil}.
	 * <p>
	 * Jitter is drawn from the given source rather than by {@link ExponentialBackOff}
	 * itself, whose jitter reads {@code Math.random()}: a seeded simulation must be
	 * reproducible.
	 * @param failures how many attempts in a row failed, from 1
	 * @param random the source of randomness
	 * @param now the instant of the failure
	 * @param validUntil the end of the validity of the grant held, or {@code null}
	 * @param window the window the budget is taken from, or {@code null}
	 * @return the instant, or empty when no attempt fits before {@code validUntil}
	 */
	public Optional<Instant> retry(int failures, RandomGenerator random, Instant now, @Nullable Instant validUntil,
			@Nullable Duration window) {
		Budget budget = budget(window);
		ExponentialBackOff backOff = new ExponentialBackOff(budget.retryInitialInterval().toNanos(),
				this.policy.retryMultiplier());
		backOff.setMaxInterval(budget.retryMaxInterval().toNanos());
		BackOffExecution execution = backOff.start();
		long delay = budget.retryInitialInterval().toNanos();
		for (int i = 0; i < Math.min(failures, 64); i++) {
			delay = execution.nextBackOff();
		}
		double factor = 1 + this.policy.retryJitter() * (2 * random.nextDouble() - 1);
		long jittered = Math.min((long) (delay * factor), budget.retryMaxInterval().toNanos());
		Instant candidate = now.plusNanos(Math.max(jittered, 1));
		if (validUntil == null) {
			return Optional.of(candidate);
		}
		Instant last = lastAttempt(validUntil, window);
		if (!candidate.isAfter(last)) {
			return Optional.of(candidate);
		}
		return now.isBefore(last) ? Optional.of(last) : Optional.empty();
	}

	/**
	 * Return the instant of the last attempt for a grant valid until {@code validUntil}:
	 * just before it (a tenth of the attempt timeout, at most half the longest retry
	 * interval), not an attempt timeout before it, so that a store that is back in the
	 * last seconds still saves the grant.
	 * @param validUntil the end of the validity
	 * @param window the window the budget is taken from, or {@code null}
	 * @return the instant
	 */
	public Instant lastAttempt(Instant validUntil, @Nullable Duration window) {
		Budget budget = budget(window);
		return validUntil.minus(min(budget.attemptTimeout().dividedBy(10), budget.retryMaxInterval().dividedBy(2)));
	}

	/**
	 * Return the delay before the next attempt of a lease whose path the store refuses (a
	 * missing policy): the longest retry interval, doubled at each refusal, up to five
	 * minutes.
	 * @param refusals how many refusals in a row, from 1
	 * @return the delay
	 */
	public Duration refusalDelay(int refusals) {
		Duration delay = this.policy.retryMaxInterval();
		for (int i = 1; i < refusals && delay.compareTo(LONGEST_REFUSAL_DELAY) < 0; i++) {
			delay = delay.multipliedBy(2);
		}
		return min(delay, LONGEST_REFUSAL_DELAY);
	}

	/**
	 * Return how late a timer may fire before the lease treats it as a fact to act on:
	 * five percent of the window, at most one second.
	 * @param window the window, or {@code null}
	 * @return the tolerance
	 */
	public Duration lateTolerance(@Nullable Duration window) {
		Duration second = Duration.ofSeconds(1);
		return (window != null && !window.isZero()) ? min(second, share(window, 0.05)) : second;
	}

	/**
	 * Return the shortest interval between two log-ins of a token: the budget's first
	 * retry interval, so that a token refused as soon as it is issued cannot make a loop.
	 * @param window the token's window, or {@code null}
	 * @return the interval
	 */
	public Duration reloginInterval(@Nullable Duration window) {
		return budget(window).retryInitialInterval();
	}

	/**
	 * Return how long a token that the store confirmed valid is taken as valid when a
	 * dependent's call is refused: the budget's longest retry interval, so that many
	 * refused paths cost one look-up.
	 * @param window the token's window, or {@code null}
	 * @return the interval
	 */
	public Duration verificationValidity(@Nullable Duration window) {
		return budget(window).retryMaxInterval();
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
		if (hasCappedWarning(renewed.warnings())) {
			return true;
		}
		if (increment != null && !increment.isZero()) {
			// Vault takes the increment in whole seconds
			return renewed.ttl().compareTo(Duration.ofSeconds(increment.toSeconds())) < 0;
		}
		return previousFullTtl != null && renewed.ttl().compareTo(previousFullTtl) < 0;
	}

	/**
	 * Return whether a window is shorter than Leasekeeper can keep alive
	 * ({@link #SHORTEST_WINDOW}): such a lease is renewed as well as it can be, with a
	 * warning, and reported lost before it expires if a renewal does not come back in
	 * time.
	 * @param window the window
	 * @return whether it is too short
	 */
	public boolean windowTooShort(Duration window) {
		return !window.isZero() && window.compareTo(SHORTEST_WINDOW) < 0;
	}

	private static boolean hasCappedWarning(List<String> warnings) {
		for (String warning : warnings) {
			if (warning.contains(CAPPED_WARNING)) {
				return true;
			}
		}
		return false;
	}

	private static Instant at(Grant grant, double fraction) {
		return grant.obtainedAt().plusNanos((long) (grant.ttl().toNanos() * Math.max(0, fraction)));
	}

	private static Duration share(Duration window, double share) {
		return Duration.ofNanos((long) (window.toNanos() * share));
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

	/** The last budget computed, with its window (immutable: safe to share). */
	private record CachedBudget(@Nullable Duration window, Budget budget) {
	}

	/**
	 * The policy's durations as they apply to one window.
	 *
	 * @param expiryBuffer the buffer before the expiry
	 * @param attemptTimeout the longest an attempt may take
	 * @param retryInitialInterval the first retry delay
	 * @param retryMaxInterval the longest retry delay
	 */
	public record Budget(Duration expiryBuffer, Duration attemptTimeout, Duration retryInitialInterval,
			Duration retryMaxInterval) {

	}

}
