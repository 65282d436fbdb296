package dev.leasekeeper.event;

import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.RotationCause;

/**
 * Published when a replacement became current: {@link #getGeneration()} is the new
 * generation, {@link #getPreviousGeneration()} the one it replaced. The consumers (the
 * pool) already use the new credential.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class LeaseRotatedEvent extends LeaseEvent {

	private final int previousGeneration;

	private final RotationCause cause;

	/**
	 * Create a new event.
	 * @param source the lease's renewer
	 * @param lease the lease with its new generation
	 * @param previousGeneration the generation it replaced
	 * @param cause why it was rotated
	 */
	public LeaseRotatedEvent(Object source, LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
		super(source, lease);
		this.previousGeneration = previousGeneration;
		this.cause = cause;
	}

	/**
	 * Return the generation that was replaced.
	 * @return the previous generation
	 */
	public int getPreviousGeneration() {
		return this.previousGeneration;
	}

	/**
	 * Return why the lease was rotated.
	 * @return the cause
	 */
	public RotationCause getCause() {
		return this.cause;
	}

	@Override
	protected String details() {
		return ", previousGeneration=" + this.previousGeneration + ", cause=" + this.cause;
	}

}
