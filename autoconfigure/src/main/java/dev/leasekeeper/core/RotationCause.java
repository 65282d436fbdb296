package dev.leasekeeper.core;

/**
 * Why a lease got a new generation.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public enum RotationCause {

	/**
	 * The lease reached its max TTL (or was never renewable).
	 */
	CEILING,

	/**
	 * The store refused a renewal permanently.
	 */
	REFUSED,

	/**
	 * The token the lease was obtained under was replaced or lost.
	 */
	TOKEN,

	/**
	 * The lease was lost (expired, revoked) and obtained again.
	 */
	LOST,

	/**
	 * An operator asked for it.
	 */
	MANUAL,

	/**
	 * A consumer found the credential refused where it is used (the database no longer
	 * accepts it) while the store still vouches for it.
	 */
	REJECTED,

	/**
	 * The store replaced the credential on its own schedule (a database static role's
	 * password rotation): the new one was read after it.
	 */
	STATIC_ROTATION,

	/**
	 * The leader of the application's group published a new grant of a lease the group
	 * shares ({@code sharing: group}), and this instance adopted it.
	 * @since 0.2.0
	 */
	PUBLISHED

}
