package dev.leasekeeper.core;

import java.time.Duration;

/**
 * When a lease is renewed and how a failing renewal is retried. Validated on
 * construction: a bad value is an {@link InvalidPolicyException} naming the setting.
 *
 * @param renewAt fraction of the granted window at which a grant is renewed, in
 * {@code (0, 1)}
 * @param firstRenewalSpread how far before {@code renewAt} the first renewal of a grant
 * may be drawn, as a fraction of {@code renewAt}, in {@code [0, 1]}; spreads a fleet that
 * obtained its grants together
 * @param jitter fraction of the window by which later renewals are drawn early, in
 * {@code [0, 0.5]}; renewals never fall after {@code renewAt}, so the budget left for
 * failures is never reduced
 * @param expiryBuffer time before the authoritative expiry at which the holder treats the
 * lease as gone, covering clock rate error and delivery delay
 * @param attemptTimeout longest a single attempt may take; never longer than the time
 * left
 * @param retryInitialInterval first delay between failed attempts
 * @param retryMultiplier factor applied to the delay after each failed attempt, at least
 * 1
 * @param retryMaxInterval longest delay between failed attempts
 * @param retryJitter fraction by which each retry delay is randomly shortened or
 * lengthened, in {@code [0, 1)}
 * @author Leasekeeper
 * @since 0.1.0
 */
public record RenewalPolicy(double renewAt, double firstRenewalSpread, double jitter, Duration expiryBuffer,
		Duration attemptTimeout, Duration retryInitialInterval, double retryMultiplier, Duration retryMaxInterval,
		double retryJitter) {

	/** Default {@link #renewAt()}. */
	public static final double DEFAULT_RENEW_AT = 0.67;

	/** Default {@link #firstRenewalSpread()}. */
	public static final double DEFAULT_FIRST_RENEWAL_SPREAD = 1.0;

	/** Default {@link #jitter()}. */
	public static final double DEFAULT_JITTER = 0.01;

	/** Default {@link #expiryBuffer()}. */
	public static final Duration DEFAULT_EXPIRY_BUFFER = Duration.ofSeconds(2);

	/** Default {@link #attemptTimeout()}. */
	public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

	/** Default {@link #retryInitialInterval()}. */
	public static final Duration DEFAULT_RETRY_INITIAL_INTERVAL = Duration.ofSeconds(1);

	/** Default {@link #retryMultiplier()}. */
	public static final double DEFAULT_RETRY_MULTIPLIER = 2.0;

	/** Default {@link #retryMaxInterval()}. */
	public static final Duration DEFAULT_RETRY_MAX_INTERVAL = Duration.ofSeconds(30);

	/** Default {@link #retryJitter()}. */
	public static final double DEFAULT_RETRY_JITTER = 0.2;

	/**
	 * Create a new policy, validating every setting.
	 */
	public RenewalPolicy {
		if (!(renewAt > 0 && renewAt < 1)) {
			throw new InvalidPolicyException("renew-at", renewAt, "must be greater than 0 and less than 1");
		}
		if (!(firstRenewalSpread >= 0 && firstRenewalSpread <= 1)) {
			throw new InvalidPolicyException("first-renewal-spread", firstRenewalSpread, "must be between 0 and 1");
		}
		if (!(jitter >= 0 && jitter <= 0.5)) {
			throw new InvalidPolicyException("jitter", jitter, "must be between 0 and 0.5");
		}
		if (jitter >= renewAt) {
			throw new InvalidPolicyException("jitter", jitter, "must be less than renew-at (" + renewAt + ")");
		}
		requireNotNegative("expiry-buffer", expiryBuffer);
		requirePositive("attempt-timeout", attemptTimeout);
		requirePositive("retry.initial-interval", retryInitialInterval);
		if (!(retryMultiplier >= 1 && retryMultiplier <= 100)) {
			throw new InvalidPolicyException("retry.multiplier", retryMultiplier, "must be between 1 and 100");
		}
		requirePositive("retry.max-interval", retryMaxInterval);
		if (retryMaxInterval.compareTo(retryInitialInterval) < 0) {
			throw new InvalidPolicyException("retry.max-interval", retryMaxInterval,
					"must not be shorter than retry.initial-interval (" + retryInitialInterval + ")");
		}
		if (!(retryJitter >= 0 && retryJitter < 1)) {
			throw new InvalidPolicyException("retry.jitter", retryJitter, "must be at least 0 and less than 1");
		}
	}

	/**
	 * Return the default policy.
	 * @return the defaults
	 */
	public static RenewalPolicy defaults() {
		return Defaults.POLICY;
	}

	/** The defaults, built once: a policy is immutable, so every lease may share it. */
	private static final class Defaults {

		static final RenewalPolicy POLICY = builder().build();

	}

	/**
	 * Return a builder that starts from the defaults.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Return a builder that starts from this policy.
	 * @return the builder
	 */
	public Builder toBuilder() {
		return new Builder().renewAt(this.renewAt)
			.firstRenewalSpread(this.firstRenewalSpread)
			.jitter(this.jitter)
			.expiryBuffer(this.expiryBuffer)
			.attemptTimeout(this.attemptTimeout)
			.retryInitialInterval(this.retryInitialInterval)
			.retryMultiplier(this.retryMultiplier)
			.retryMaxInterval(this.retryMaxInterval)
			.retryJitter(this.retryJitter);
	}

	private static void requirePositive(String setting, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidPolicyException(setting, value, "must be a positive duration");
		}
	}

	private static void requireNotNegative(String setting, Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidPolicyException(setting, value, "must be zero or a positive duration");
		}
	}

	/**
	 * Builds a {@link RenewalPolicy}, starting from the defaults.
	 */
	public static final class Builder {

		private double renewAt = DEFAULT_RENEW_AT;

		private double firstRenewalSpread = DEFAULT_FIRST_RENEWAL_SPREAD;

		private double jitter = DEFAULT_JITTER;

		private Duration expiryBuffer = DEFAULT_EXPIRY_BUFFER;

		private Duration attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;

		private Duration retryInitialInterval = DEFAULT_RETRY_INITIAL_INTERVAL;

		private double retryMultiplier = DEFAULT_RETRY_MULTIPLIER;

		private Duration retryMaxInterval = DEFAULT_RETRY_MAX_INTERVAL;

		private double retryJitter = DEFAULT_RETRY_JITTER;

		private Builder() {
		}

		/**
		 * Set the fraction of the window at which a grant is renewed.
		 * @param renewAt the fraction
		 * @return this builder
		 */
		public Builder renewAt(double renewAt) {
			this.renewAt = renewAt;
			return this;
		}

		/**
		 * Set the spread of the first renewal of each grant.
		 * @param firstRenewalSpread the spread, a fraction of {@code renewAt}
		 * @return this builder
		 */
		public Builder firstRenewalSpread(double firstRenewalSpread) {
			this.firstRenewalSpread = firstRenewalSpread;
			return this;
		}

		/**
		 * Set the jitter of later renewals.
		 * @param jitter the jitter, a fraction of the window
		 * @return this builder
		 */
		public Builder jitter(double jitter) {
			this.jitter = jitter;
			return this;
		}

		/**
		 * Set the expiry buffer.
		 * @param expiryBuffer the buffer
		 * @return this builder
		 */
		public Builder expiryBuffer(Duration expiryBuffer) {
			this.expiryBuffer = expiryBuffer;
			return this;
		}

		/**
		 * Set the attempt timeout.
		 * @param attemptTimeout the timeout
		 * @return this builder
		 */
		public Builder attemptTimeout(Duration attemptTimeout) {
			this.attemptTimeout = attemptTimeout;
			return this;
		}

		/**
		 * Set the first retry delay.
		 * @param retryInitialInterval the delay
		 * @return this builder
		 */
		public Builder retryInitialInterval(Duration retryInitialInterval) {
			this.retryInitialInterval = retryInitialInterval;
			return this;
		}

		/**
		 * Set the retry multiplier.
		 * @param retryMultiplier the multiplier
		 * @return this builder
		 */
		public Builder retryMultiplier(double retryMultiplier) {
			this.retryMultiplier = retryMultiplier;
			return this;
		}

		/**
		 * Set the longest retry delay.
		 * @param retryMaxInterval the delay
		 * @return this builder
		 */
		public Builder retryMaxInterval(Duration retryMaxInterval) {
			this.retryMaxInterval = retryMaxInterval;
			return this;
		}

		/**
		 * Set the retry jitter.
		 * @param retryJitter the jitter, a fraction of each delay
		 * @return this builder
		 */
		public Builder retryJitter(double retryJitter) {
			this.retryJitter = retryJitter;
			return this;
		}

		/**
		 * Build the policy, validating every setting.
		 * @return the policy
		 * @throws InvalidPolicyException if a setting is not allowed
		 */
		public RenewalPolicy build() {
			return new RenewalPolicy(this.renewAt, this.firstRenewalSpread, this.jitter, this.expiryBuffer,
					this.attemptTimeout, this.retryInitialInterval, this.retryMultiplier, this.retryMaxInterval,
					this.retryJitter);
		}

	}

}
