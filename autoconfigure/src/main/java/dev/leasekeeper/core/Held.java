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
 * @param goneAt when the store said the credential is gone, or {@code null}
 * @param validUntil until when the engine vouches for it ({@link Instant#MAX} when it
 * does not expire)
 * @author Leasekeeper
 */
record Held(Grant grant, int generation, int tokenGeneration, @Nullable Instant tokenExpiry, @Nullable Instant goneAt,
		Instant validUntil) {

	static Held of(Grant grant, int generation, int tokenGeneration, @Nullable Instant tokenExpiry,
			RenewalSchedule schedule) {
		return new Held(grant, generation, tokenGeneration, tokenExpiry, null, Instant.MAX).revalidated(schedule);
	}

	/**
	 * Return the effective expiry: the earlier of the grant's own and its token's.
	 */
	@Nullable Instant expiry() {
		Instant own = this.grant.expiry();
		if (own == null) {
			return this.tokenExpiry;
		}
		return (this.tokenExpiry != null && this.tokenExpiry.isBefore(own)) ? this.tokenExpiry : own;
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
		return new Held(renewed, this.generation, this.tokenGeneration, this.tokenExpiry, this.goneAt, this.validUntil)
			.revalidated(schedule);
	}

	Held withTokenExpiry(@Nullable Instant expiry, RenewalSchedule schedule) {
		return new Held(this.grant, this.generation, this.tokenGeneration, expiry, this.goneAt, this.validUntil)
			.revalidated(schedule);
	}

	Held goneAt(Instant instant) {
		return new Held(this.grant, this.generation, this.tokenGeneration, this.tokenExpiry, instant,
				this.validUntil.isAfter(instant) ? instant : this.validUntil);
	}

	private Held revalidated(RenewalSchedule schedule) {
		Instant expiry = expiry();
		Instant until = Instant.MAX;
		if (expiry != null) {
			Duration window = Duration.between(this.grant.obtainedAt(), expiry);
			until = schedule.validUntil(expiry, window.isNegative() ? Duration.ZERO : window);
		}
		if (this.goneAt != null && this.goneAt.isBefore(until)) {
			until = this.goneAt;
		}
		return new Held(this.grant, this.generation, this.tokenGeneration, this.tokenExpiry, this.goneAt, until);
	}

}
