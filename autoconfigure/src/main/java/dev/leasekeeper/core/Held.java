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
 * @author Leasekeeper
 */
record Held(Grant grant, int generation, int tokenGeneration, @Nullable Instant tokenExpiry,
		@Nullable Instant tokenValidUntil, @Nullable Instant goneAt, @Nullable Instant renewalSentAt,
		Instant validUntil) {

	/**
	 * Vault truncates the issue time and the present to whole seconds when it caps a
	 * renewal (VAULT_SEMANTICS.md §1), so a capped renewal may set an expiry up to this
	 * much earlier than the previous grant's, and never less than this after it is sent.
	 */
	static final Duration STORE_GRANULARITY = Duration.ofSeconds(1);

	static Held of(Grant grant, int generation, int tokenGeneration, @Nullable Instant tokenExpiry,
			@Nullable Instant tokenValidUntil, RenewalSchedule schedule) {
		return new Held(grant, generation, tokenGeneration, tokenExpiry, tokenValidUntil, null, null, Instant.MAX)
			.revalidated(schedule);
	}

	/**
	 * Return the effective expiry: the earlier of the grant's own and its token's.
	 */
	@Nullable Instant expiry() {
		Instant own = ownExpiry();
		if (own == null) {
			return this.tokenExpiry;
		}
		return (this.tokenExpiry != null && this.tokenExpiry.isBefore(own)) ? this.tokenExpiry : own;
	}

	/**
	 * Return the grant's own expiry, as early as a renewal still unanswered may have made
	 * it.
	 */
	@Nullable Instant ownExpiry() {
		Instant own = this.grant.expiry();
		if (own == null || this.renewalSentAt == null) {
			return own;
		}
		Instant floor = own.minus(STORE_GRANULARITY);
		Instant sent = this.renewalSentAt.plus(STORE_GRANULARITY);
		Instant bound = sent.isAfter(floor) ? sent : floor;
		return bound.isBefore(own) ? bound : own;
	}

	boolean expires() {
		return expiry() != null;
	}

	boolean isValidAt(Instant now) {
		return now.isBefore(this.validUntil);
	}

	@Nullable Instant validUntilOrNull() {
		return this.validUntil.equals(Instant.MAX) ? null : this.validUntil;
	}

	Held withGrant(Grant renewed, RenewalSchedule schedule) {
		return new Held(renewed, this.generation, this.tokenGeneration, this.tokenExpiry, this.tokenValidUntil,
				this.goneAt, null, this.validUntil)
			.revalidated(schedule);
	}

	Held withRenewalSentAt(@Nullable Instant sentAt, RenewalSchedule schedule) {
		return new Held(this.grant, this.generation, this.tokenGeneration, this.tokenExpiry, this.tokenValidUntil,
				this.goneAt, sentAt, this.validUntil)
			.revalidated(schedule);
	}

	Held withToken(@Nullable Instant expiry, @Nullable Instant validUntil, RenewalSchedule schedule) {
		return new Held(this.grant, this.generation, this.tokenGeneration, expiry, validUntil, this.goneAt,
				this.renewalSentAt, this.validUntil)
			.revalidated(schedule);
	}

	Held goneAt(Instant instant) {
		return new Held(this.grant, this.generation, this.tokenGeneration, this.tokenExpiry, this.tokenValidUntil,
				instant, this.renewalSentAt, this.validUntil.isAfter(instant) ? instant : this.validUntil);
	}

	/**
	 * The validity: the grant's own expiry less its buffer, never past what a renewal
	 * still unanswered may have left, and never past the validity of its token (a secret
	 * lease dies with the token it was obtained under).
	 */
	private Held revalidated(RenewalSchedule schedule) {
		Instant own = this.grant.expiry();
		Instant until = (own != null) ? schedule.validUntil(own, this.grant.ttl()) : Instant.MAX;
		Instant bounded = ownExpiry();
		if (bounded != null && bounded.isBefore(until)) {
			// a lower bound of the store's expiry already: no second buffer
			until = bounded;
		}
		if (this.tokenValidUntil != null && this.tokenValidUntil.isBefore(until)) {
			until = this.tokenValidUntil;
		}
		if (this.goneAt != null && this.goneAt.isBefore(until)) {
			until = this.goneAt;
		}
		return new Held(this.grant, this.generation, this.tokenGeneration, this.tokenExpiry, this.tokenValidUntil,
				this.goneAt, this.renewalSentAt, until);
	}

}
