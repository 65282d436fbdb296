package dev.leasekeeper.core;

/**
 * Where a lease is in its life.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public enum LeaseState {

	/**
	 * Not started yet.
	 */
	NEW,

	/**
	 * Obtaining a grant, with none held (at start, or after a loss).
	 */
	ACQUIRING,

	/**
	 * Holding a valid grant; the next renewal is scheduled.
	 */
	ACTIVE,

	/**
	 * A renewal is in flight.
	 */
	RENEWING,

	/**
	 * Renewals are failing transiently; the grant is still valid and attempts continue
	 * within its budget.
	 */
	RETRYING,

	/**
	 * The grant cannot be extended past its max TTL; a replacement is scheduled.
	 */
	CEILING,

	/**
	 * A replacement is being obtained while the current grant stays in use.
	 */
	ROTATING,

	/**
	 * The deadline passed without a confirmed renewal.
	 */
	EXPIRED,

	/**
	 * Permanently refused, or the store said the credential is gone.
	 */
	LOST,

	/**
	 * Shut down; the grant was revoked or released.
	 */
	REVOKED;

	/**
	 * Return whether a lease in this state holds a grant that the engine still vouches
	 * for.
	 * @return {@code true} for the states that hold a grant
	 */
	public boolean holdsGrant() {
		return this == ACTIVE || this == RENEWING || this == RETRYING || this == CEILING || this == ROTATING;
	}

}
