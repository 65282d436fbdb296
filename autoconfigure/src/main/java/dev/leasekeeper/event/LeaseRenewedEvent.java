package dev.leasekeeper.event;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseRenewal;

/**
 * Published after each successful renewal.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class LeaseRenewedEvent extends LeaseEvent {

	private final LeaseRenewal renewal;

	/**
	 * Create a new event.
	 * @param source the lease's renewer
	 * @param renewal what the renewal changed
	 */
	public LeaseRenewedEvent(Object source, LeaseRenewal renewal) {
		super(source, renewal.lease());
		this.renewal = new LeaseRenewal(getLease(), renewal.previousExpiry(), renewal.newExpiry(), renewal.grantedTtl(),
				renewal.remainingAtAttempt(), renewal.attempts(), renewal.capped());
	}

	/**
	 * Return the expiry before the renewal.
	 * @return the previous expiry
	 */
	public @Nullable Instant getPreviousExpiry() {
		return this.renewal.previousExpiry();
	}

	/**
	 * Return the expiry after the renewal.
	 * @return the new expiry
	 */
	public @Nullable Instant getNewExpiry() {
		return this.renewal.newExpiry();
	}

	/**
	 * Return the TTL Vault granted.
	 * @return the granted TTL
	 */
	public Duration getGrantedTtl() {
		return this.renewal.grantedTtl();
	}

	/**
	 * Return how much of the previous window was left when the successful attempt was
	 * sent.
	 * @return the remaining time
	 */
	public Duration getRemainingAtAttempt() {
		return this.renewal.remainingAtAttempt();
	}

	/**
	 * Return how many attempts the renewal took.
	 * @return the attempts, 1 when the first succeeded
	 */
	public int getAttempts() {
		return this.renewal.attempts();
	}

	@Override
	protected String details() {
		return ", previousExpiry=" + getPreviousExpiry() + ", newExpiry=" + getNewExpiry() + ", grantedTtl="
				+ getGrantedTtl() + ", remainingAtAttempt=" + getRemainingAtAttempt() + ", attempts=" + getAttempts();
	}

}
