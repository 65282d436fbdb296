package dev.leasekeeper.event;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseSnapshot;

import org.springframework.context.ApplicationEvent;

/**
 * Base class of the events Leasekeeper publishes about a lease. Published on
 * Leasekeeper's event thread, never on the renewal thread, so that a slow listener never
 * delays a renewal. Their string form holds no secret.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public abstract class LeaseEvent extends ApplicationEvent {

	private final LeaseSnapshot lease;

	/**
	 * Create a new event.
	 * @param source the lease's renewer
	 * @param lease the lease as it was
	 */
	protected LeaseEvent(Object source, LeaseSnapshot lease) {
		super(source);
		// an event may be queued or kept long after its grant: never with the credential
		this.lease = lease.withoutData();
	}

	/**
	 * Return the lease's name.
	 * @return the name
	 */
	public String getLeaseName() {
		return this.lease.name();
	}

	/**
	 * Return the generation of the grant the event is about.
	 * @return the generation
	 */
	public int getGeneration() {
		return this.lease.generation();
	}

	/**
	 * Return the lease id of the grant the event is about.
	 * @return the lease id, or {@code null}
	 */
	public @Nullable String getLeaseId() {
		return this.lease.leaseId();
	}

	/**
	 * Return the lease as it was when the event happened, without its credential fields
	 * (read the renewer's {@code current()} for those).
	 * @return the snapshot
	 */
	public LeaseSnapshot getLease() {
		return this.lease;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[lease=" + getLeaseName() + ", generation=" + getGeneration()
				+ ", leaseId=" + getLeaseId() + details() + "]";
	}

	/**
	 * Return the event's own fields for {@link #toString()}, starting with {@code ", "}.
	 * @return the details
	 */
	protected abstract String details();

}
