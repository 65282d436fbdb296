package dev.leasekeeper.core;

/**
 * What a lease does when it reaches its ceiling.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public enum CeilingAction {

	/**
	 * Obtain a replacement before the hard expiry and hand it to the consumers.
	 */
	ROTATE,

	/**
	 * Only tell the listeners; keep renewing until the store refuses.
	 */
	NOTIFY

}
