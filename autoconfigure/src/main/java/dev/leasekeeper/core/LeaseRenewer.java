package dev.leasekeeper.core;

import java.time.Duration;

/**
 * One declared lease, as the application sees it: what it holds now, whether that covers
 * the work ahead, and commands to act at once.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public interface LeaseRenewer {

	/**
	 * Return the lease's name.
	 * @return the name
	 */
	String getName();

	/**
	 * Return the lease as it is now.
	 * @return the snapshot
	 */
	LeaseSnapshot current();

	/**
	 * Return the lease as it is now if it can vouch for its credential for
	 * {@code duration}.
	 * @param duration how long the caller needs the credential
	 * @return the snapshot
	 * @throws LeaseExpiredException if the lease cannot cover that long
	 */
	LeaseSnapshot requireValidFor(Duration duration);

	/**
	 * Renew the lease now, instead of at its planned instant.
	 */
	void renewNow();

	/**
	 * Obtain a replacement now and hand it to the consumers, as an operator's request.
	 */
	default void rotateNow() {
		rotateNow(RotationCause.MANUAL);
	}

	/**
	 * Obtain a replacement now and hand it to the consumers.
	 * @param cause why, as {@link dev.leasekeeper.event.LeaseRotatedEvent} and the
	 * metrics will report it
	 */
	void rotateNow(RotationCause cause);

	/**
	 * Return what the lease is obtained from, such as its path.
	 * @return the description, never a secret
	 */
	String describe();

}
