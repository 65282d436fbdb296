package dev.leasekeeper.event;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseSnapshot;

/**
 * Published when Leasekeeper stops vouching for a lease's credential: its deadline passed
 * without a confirmed renewal, or Vault refused it. Work that needs the credential must
 * stop.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class LeaseLostEvent extends LeaseEvent {

	private final LeaseLossReason reason;

	private final @Nullable String errorClass;

	/**
	 * Create a new event.
	 * @param source the lease's renewer
	 * @param lease the lease
	 * @param reason why it was lost
	 * @param errorClass the error class of the last failure, or {@code null}
	 */
	public LeaseLostEvent(Object source, LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
		super(source, lease);
		this.reason = reason;
		this.errorClass = errorClass;
	}

	/**
	 * Return why the lease was lost.
	 * @return the reason
	 */
	public LeaseLossReason getReason() {
		return this.reason;
	}

	/**
	 * Return the error class of the last failure, such as {@code http-503} or
	 * {@code lease-not-found}.
	 * @return the error class, or {@code null}
	 */
	public @Nullable String getErrorClass() {
		return this.errorClass;
	}

	@Override
	protected String details() {
		return ", reason=" + this.reason + ", errorClass=" + this.errorClass;
	}

}
