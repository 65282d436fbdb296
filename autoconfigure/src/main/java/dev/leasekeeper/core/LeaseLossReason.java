package dev.leasekeeper.core;

/**
 * Why a lease was lost.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public enum LeaseLossReason {

	/**
	 * Its deadline passed without a confirmed renewal (the store was unreachable), or the
	 * token it depends on expired.
	 */
	EXPIRED,

	/**
	 * The store says the lease is gone: revoked out of band or unknown.
	 */
	REVOKED,

	/**
	 * The store refused to renew or to obtain it, and no retry will change that.
	 */
	REFUSED,

	/**
	 * The token was refused (403): expired, revoked, or lacking policy.
	 */
	UNAUTHORIZED

}
