package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What a {@link LeaseSource} granted: a lease id, the TTL actually granted, whether it
 * can be renewed, the credential fields and any warnings the store sent.
 * <p>
 * {@code obtainedAt} is the monotonic instant at which the request was <em>sent</em>: the
 * window {@code [obtainedAt, obtainedAt + ttl)} is a conservative estimate of what the
 * store granted. {@link #toString()} never shows the values of {@code data}.
 *
 * @param leaseId the lease id, empty when the store has none (a token is identified by
 * its accessor)
 * @param ttl the granted TTL; {@link Duration#ZERO} means the grant does not expire
 * @param renewable whether the grant can be renewed
 * @param data the credential fields (secret values)
 * @param warnings the warnings the store attached to its answer
 * @param obtainedAt the monotonic instant at which the request was sent
 * @param refreshAfter for a credential the store replaces on its own schedule (a static
 * role's password), how long after {@code obtainedAt} to read it again; {@code null} for
 * a lease
 * @author Leasekeeper
 * @since 0.1.0
 */
public record Grant(String leaseId, Duration ttl, boolean renewable, Map<String, Object> data, List<String> warnings,
		Instant obtainedAt, @Nullable Duration refreshAfter) {

	/**
	 * Create a new grant, copying {@code data} and {@code warnings}.
	 */
	public Grant {
		Assert.notNull(leaseId, "'leaseId' must not be null");
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(!ttl.isNegative(), () -> "'ttl' must not be negative, but was " + ttl);
		Assert.notNull(data, "'data' must not be null");
		Assert.notNull(warnings, "'warnings' must not be null");
		Assert.notNull(obtainedAt, "'obtainedAt' must not be null");
		Assert.isTrue(refreshAfter == null || !refreshAfter.isNegative(),
				() -> "'refreshAfter' must not be negative, but was " + refreshAfter);
		data = Map.copyOf(data);
		warnings = List.copyOf(warnings);
	}

	/**
	 * Create a grant of a lease (renewed, or replaced before it ends).
	 * @param leaseId the lease id
	 * @param ttl the granted TTL
	 * @param renewable whether the grant can be renewed
	 * @param data the credential fields
	 * @param warnings the store's warnings
	 * @param obtainedAt when the request was sent
	 */
	public Grant(String leaseId, Duration ttl, boolean renewable, Map<String, Object> data, List<String> warnings,
			Instant obtainedAt) {
		this(leaseId, ttl, renewable, data, warnings, obtainedAt, null);
	}

	/**
	 * Create a grant without data or warnings.
	 * @param leaseId the lease id
	 * @param ttl the granted TTL
	 * @param renewable whether the grant can be renewed
	 * @param obtainedAt when the request was sent
	 * @return the grant
	 */
	public static Grant of(String leaseId, Duration ttl, boolean renewable, Instant obtainedAt) {
		return new Grant(leaseId, ttl, renewable, Map.of(), List.of(), obtainedAt);
	}

	/**
	 * Return whether this grant expires at all (a root token does not).
	 * @return {@code true} unless the TTL is zero
	 */
	public boolean expires() {
		return !this.ttl.isZero();
	}

	/**
	 * Return the instant at which this grant expires, measured from
	 * {@link #obtainedAt()}.
	 * @return the expiry, or {@code null} when the grant does not expire
	 */
	public @Nullable Instant expiry() {
		return expires() ? this.obtainedAt.plus(this.ttl) : null;
	}

	/**
	 * Return a copy of this grant with other data, as a renewal that answers without data
	 * keeps the old fields.
	 * @param data the data to keep
	 * @return the copy
	 */
	public Grant withData(Map<String, Object> data) {
		return new Grant(this.leaseId, this.ttl, this.renewable, data, this.warnings, this.obtainedAt,
				this.refreshAfter);
	}

	@Override
	public String toString() {
		return "Grant[leaseId=" + this.leaseId + ", ttl=" + this.ttl + ", renewable=" + this.renewable + ", data="
				+ Redaction.keysOnly(this.data) + ", warnings=" + this.warnings + ", obtainedAt=" + this.obtainedAt
				+ ((this.refreshAfter != null) ? ", refreshAfter=" + this.refreshAfter : "") + "]";
	}

}
