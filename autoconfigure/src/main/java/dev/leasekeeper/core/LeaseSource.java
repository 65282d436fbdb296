package dev.leasekeeper.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Where a lease comes from: obtains, renews and revokes grants. Implementations are
 * called from a worker thread, never from the scheduling thread, and one lease never has
 * two calls of its own in flight. A call should return within the engine's attempt
 * timeout; the engine abandons an attempt that does not.
 * <p>
 * Every failure is a {@link LeaseSourceException} that says whether it is worth retrying.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public interface LeaseSource {

	/**
	 * Obtain a new grant.
	 * @return the grant, with {@link Grant#obtainedAt()} taken before the request was
	 * sent
	 * @throws LeaseSourceException if the store did not grant one
	 */
	Grant acquire() throws LeaseSourceException;

	/**
	 * Renew a grant.
	 * @param current the grant to renew
	 * @param increment the TTL to ask for, or {@code null} to let the store apply its
	 * default
	 * @return the renewed grant, with {@link Grant#obtainedAt()} taken before the request
	 * was sent
	 * @throws LeaseSourceException if the store did not renew it
	 */
	Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException;

	/**
	 * Ask the store whether a grant is still valid, without extending it if it can say so
	 * (a token's {@code lookup-self}). The default renews it.
	 * @param current the grant to look up
	 * @return the grant as the store sees it now
	 * @throws LeaseSourceException if the store does not vouch for it
	 */
	default Grant lookup(Grant current) throws LeaseSourceException {
		return renew(current, null);
	}

	/**
	 * Revoke a grant. Revoking a grant that is already gone succeeds.
	 * @param current the grant to revoke
	 * @throws LeaseSourceException if the store could not be told
	 */
	void revoke(Grant current) throws LeaseSourceException;

	/**
	 * Return whether {@link #revoke(Grant)} tells the store: {@code false} for grants
	 * that are not Leasekeeper's to revoke (a token given in configuration), so that no
	 * log line calls them revoked.
	 * @return whether grants are revoked
	 */
	default boolean revokes() {
		return true;
	}

	/**
	 * Return a short description of what this source obtains (a path), for logs and the
	 * actuator.
	 * @return the description, never a secret
	 */
	default String describe() {
		return getClass().getSimpleName();
	}

}
