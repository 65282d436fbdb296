package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A grant as a lease holds it: its generation, the token generation it was obtained under
 * with that token's expiry, and the instant the store said it is gone.
 *
 * @param grant the grant
 * @param generation the generation, from 1
 * @param tokenGeneration the generation of the token it depends on, 0 for none
 * @param tokenExpiry the expiry of that token, or {@code null}
 * @param tokenValidUntil until when the engine vouches for that token, or {@code null}
 * @param goneAt when the store said the credential is gone, or {@code null}
 * @param renewalSentAt when the first renewal since the last answered one was sent, or
 * {@code null}
 * @param validUntil until when the engine vouches for it ({@link Instant#MAX} when it
 * does not expire)
 * @param grantExpiry the grant's own expiry ({@link Grant#expiry()}), or {@code null}
 * @param expiry the effective expiry (the earlier of its own and its token's), or
 * {@code null}
 * @param window from when the grant was requested to its effective expiry, or
 * {@code null} when it does not expire
 * @author Leasekeeper
 */
record Held(Grant grant, int generation, int tokenGeneration, @Nullable Instant tokenExpiry,
		@Nullable Instant tokenValidUntil, @Nullable Instant goneAt, @Nullable Instant renewalSentAt,
		Instant validUntil, @Nullable Instant grantExpiry, @Nullable Instant expiry, @Nullable Duration window) {

	/**
	 * Vault truncates the issue time and the present to whole seconds when it caps a
	 * renewal (VAULT_SEMANTICS.md §1), so a capped renewal may set an expiry up to this
	 * much earlier than the previous grant's, and never less than this after it is sent.
	 */
	static final Duration STORE_GRANULARITY = Duration.ofSeconds(1);

	static Held of(Grant grant, int generation, int tokenGeneration, @Nullable Instant tokenExpiry,
			@Nullable Instant tokenValidUntil, RenewalSchedule schedule) {
		return create(grant, generation, tokenGeneration, tokenExpiry, tokenValidUntil, null, null, schedule);
	}

	boolean expires() {
		return this.expiry != null;
	}

	boolean isValidAt(Instant now) {
		return now.isBefore(this.validUntil);
	}

	@Nullable Instant validUntilOrNull() {
		return this.validUntil.equals(Instant.MAX) ? null : this.validUntil;
	}

	Held withGrant(Grant renewed, RenewalSchedule schedule) {
		return create(renewed, this.generation, this.tokenGeneration, this.tokenExpiry, this.tokenValidUntil,
				this.goneAt, null, schedule);
	}

	/**
	 * Return the effective expiry as it was before a renewal still unanswered was sent.
	 */
	@Nullable Instant expiryBeforeRenewal() {
		Instant own = this.grantExpiry;
		return (own == null || (this.tokenExpiry != null && this.tokenExpiry.isBefore(own))) ? this.tokenExpiry : own;
	}

	Held withRenewalSentAt(@Nullable Instant sentAt, RenewalSchedule schedule) {
		return create(this.grant, this.generation, this.tokenGeneration, this.tokenExpiry, this.tokenValidUntil,
				this.goneAt, sentAt, schedule);
	}

	Held withToken(@Nullable Instant expiry, @Nullable Instant validUntil, RenewalSchedule schedule) {
		return create(this.grant, this.generation, this.tokenGeneration, expiry, validUntil, this.goneAt,
				this.renewalSentAt, schedule);
	}

	Held goneAt(Instant instant) {
		return new Held(this.grant, this.generation, this.tokenGeneration, this.tokenExpiry, this.tokenValidUntil,
				instant, this.renewalSentAt, this.validUntil.isAfter(instant) ? instant : this.validUntil,
				this.grantExpiry, this.expiry, this.window);
	}

	/**
	 * A held grant with its expiries worked out once (they are read many times per
	 * transition) and its validity: the grant's own expiry less its buffer, never past
	 * what a renewal still unanswered may have left, and never past the validity of its
	 * token (a secret lease dies with the token it was obtained under).
	 */
	private static Held create(Grant grant, int generation, int tokenGeneration, @Nullable Instant tokenExpiry,
			@Nullable Instant tokenValidUntil, @Nullable Instant goneAt, @Nullable Instant renewalSentAt,
			RenewalSchedule schedule) {
		Instant grantExpiry = grant.expiry();
		Instant ownExpiry = bounded(grantExpiry, renewalSentAt);
		Instant expiry = ownExpiry;
		if (expiry == null || (tokenExpiry != null && tokenExpiry.isBefore(expiry))) {
			expiry = tokenExpiry;
		}
		Instant until = (grantExpiry != null) ? schedule.validUntil(grantExpiry, grant.ttl()) : Instant.MAX;
		if (ownExpiry != null && ownExpiry.isBefore(until)) {
			// a lower bound of the store's expiry already: no second buffer
			until = ownExpiry;
		}
		if (tokenValidUntil != null && tokenValidUntil.isBefore(until)) {
			until = tokenValidUntil;
		}
		if (goneAt != null && goneAt.isBefore(until)) {
			until = goneAt;
		}
		Duration window = null;
		if (expiry != null && expiry == grantExpiry) {
			// the grant's own expiry, neither bounded nor the token's: the window is the
			// TTL (most often; no Duration made)
			window = grant.ttl();
		}
		else if (expiry != null) {
			window = Duration.between(grant.obtainedAt(), expiry);
			window = window.isNegative() ? Duration.ZERO : window.equals(grant.ttl()) ? grant.ttl() : window;
		}
		return new Held(grant, generation, tokenGeneration, tokenExpiry, tokenValidUntil, goneAt, renewalSentAt, until,
				grantExpiry, expiry, window);
	}

	/**
	 * The grant's own expiry, as early as a renewal still unanswered may have made it.
	 */
	private static @Nullable Instant bounded(@Nullable Instant own, @Nullable Instant renewalSentAt) {
		if (own == null || renewalSentAt == null) {
			return own;
		}
		Instant floor = own.minus(STORE_GRANULARITY);
		Instant sent = renewalSentAt.plus(STORE_GRANULARITY);
		Instant bound = sent.isAfter(floor) ? sent : floor;
		return bound.isBefore(own) ? bound : own;
	}

}
