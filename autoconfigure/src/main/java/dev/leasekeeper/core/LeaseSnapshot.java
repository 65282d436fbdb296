package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A lease as it is at one instant: immutable, safe to hand to any thread.
 * {@link #toString()} never shows the values of {@code data}.
 *
 * @param name the lease's name
 * @param generation the generation of the grant held: 1 for the first grant, one more for
 * each replacement; 0 before the first grant
 * @param leaseId the lease id of the grant held, or {@code null} when none is held
 * @param state the state
 * @param obtainedAt when the grant held was requested, or {@code null}
 * @param ttl the TTL of the grant held, or {@code null}
 * @param expiry the effective expiry of the grant held (the earlier of its own and its
 * token's), or {@code null} when none is held or it does not expire
 * @param validUntil the instant until which the engine vouches for the credential (expiry
 * less the buffer, or earlier if the store said it is gone), or {@code null} when it does
 * not expire
 * @param nextActionAt when the lease acts next (renewal, retry, rotation), or
 * {@code null}
 * @param data the credential fields of the grant held
 * @author Leasekeeper
 * @since 0.1.0
 */
public record LeaseSnapshot(String name, int generation, @Nullable String leaseId, LeaseState state,
		@Nullable Instant obtainedAt, @Nullable Duration ttl, @Nullable Instant expiry, @Nullable Instant validUntil,
		@Nullable Instant nextActionAt, Map<String, Object> data) {

	/**
	 * Create a new snapshot, copying {@code data}.
	 */
	public LeaseSnapshot {
		data = Map.copyOf(data);
	}

	/**
	 * Return this snapshot without its credential fields, for whatever outlives the grant
	 * (a future, a record of what happened).
	 * @return the snapshot with empty {@link #data()}
	 */
	public LeaseSnapshot withoutData() {
		return this.data.isEmpty() ? this : new LeaseSnapshot(this.name, this.generation, this.leaseId, this.state,
				this.obtainedAt, this.ttl, this.expiry, this.validUntil, this.nextActionAt, Map.of());
	}

	/**
	 * Return whether the credential can be used for {@code duration} from {@code now}:
	 * the lease holds a grant and {@code now + duration} is not after
	 * {@link #validUntil()}.
	 * @param now the present
	 * @param duration how long the caller needs the credential
	 * @return whether it covers that long
	 */
	public boolean isValidFor(Instant now, Duration duration) {
		if (!this.state.holdsGrant()) {
			return false;
		}
		return this.validUntil == null || !now.plus(duration).isAfter(this.validUntil);
	}

	/**
	 * Return the lease id with its random part masked, for logs and the actuator.
	 * @return the masked lease id, such as {@code database/creds/orders/****x7Qa}
	 */
	public String maskedLeaseId() {
		return Redaction.maskLeaseId(this.leaseId);
	}

	@Override
	public String toString() {
		return "LeaseSnapshot[name=" + this.name + ", generation=" + this.generation + ", leaseId=" + this.leaseId
				+ ", state=" + this.state + ", obtainedAt=" + this.obtainedAt + ", ttl=" + this.ttl + ", expiry="
				+ this.expiry + ", validUntil=" + this.validUntil + ", nextActionAt=" + this.nextActionAt + ", data="
				+ Redaction.keysOnly(this.data) + "]";
	}

}
