package dev.leasekeeper.core;

/**
 * Thrown when a lease cannot vouch for its credential for as long as a caller needs it.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class LeaseExpiredException extends IllegalStateException {

	private final LeaseSnapshot snapshot;

	/**
	 * Create a new exception.
	 * @param snapshot the lease as it was
	 * @param message the description, without secrets
	 */
	public LeaseExpiredException(LeaseSnapshot snapshot, String message) {
		super(message);
		this.snapshot = snapshot;
	}

	/**
	 * Return the lease as it was when the check failed.
	 * @return the snapshot
	 */
	public LeaseSnapshot getSnapshot() {
		return this.snapshot;
	}

}
