package dev.leasekeeper.event;

import java.time.Instant;

import dev.leasekeeper.core.CeilingAction;
import dev.leasekeeper.core.LeaseSnapshot;

/**
 * Published once per generation, when a renewal reveals that the lease cannot be extended
 * past its max TTL.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class LeaseCeilingReachedEvent extends LeaseEvent {

	private final Instant hardExpiry;

	private final CeilingAction action;

	/**
	 * Create a new event.
	 * @param source the lease's renewer
	 * @param lease the lease
	 * @param hardExpiry the instant past which it cannot be extended
	 * @param action what the lease does about it
	 */
	public LeaseCeilingReachedEvent(Object source, LeaseSnapshot lease, Instant hardExpiry, CeilingAction action) {
		super(source, lease);
		this.hardExpiry = hardExpiry;
		this.action = action;
	}

	/**
	 * Return the instant past which the grant cannot be extended.
	 * @return the hard expiry
	 */
	public Instant getHardExpiry() {
		return this.hardExpiry;
	}

	/**
	 * Return what the lease does about it.
	 * @return the action taken
	 */
	public CeilingAction getAction() {
		return this.action;
	}

	@Override
	protected String details() {
		return ", hardExpiry=" + this.hardExpiry + ", action=" + this.action;
	}

}
