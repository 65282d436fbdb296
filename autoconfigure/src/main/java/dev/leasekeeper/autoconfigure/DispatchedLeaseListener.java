package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.CeilingAction;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.core.RotationCause;

/**
 * An application's listener, told on a thread of its own instead of Leasekeeper's
 * scheduling thread: one that blocks delays only its own notifications, one that throws
 * (even an {@link Error}) is logged and changes nothing. Notifications keep their order.
 * Not a consumer: {@code accept} and {@code release} are not passed on.
 *
 * @author Leasekeeper
 */
final class DispatchedLeaseListener implements LeaseListener {

	private static final Log logger = LogFactory.getLog(DispatchedLeaseListener.class);

	private final String leaseName;

	private final LeaseListener delegate;

	private final Executor executor;

	DispatchedLeaseListener(String leaseName, LeaseListener delegate, Executor executor) {
		this.leaseName = leaseName;
		this.delegate = delegate;
		this.executor = executor;
	}

	@Override
	public void onAcquired(LeaseSnapshot lease) {
		dispatch(() -> this.delegate.onAcquired(lease));
	}

	@Override
	public void onRenewed(LeaseRenewal renewal) {
		dispatch(() -> this.delegate.onRenewed(renewal));
	}

	@Override
	public void onFailure(LeaseSnapshot lease, LeaseSourceException failure, int attempt,
			@Nullable Instant nextAttemptAt) {
		dispatch(() -> this.delegate.onFailure(lease, failure, attempt, nextAttemptAt));
	}

	@Override
	public void onCeilingReached(LeaseSnapshot lease, Instant hardExpiry, CeilingAction action) {
		dispatch(() -> this.delegate.onCeilingReached(lease, hardExpiry, action));
	}

	@Override
	public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
		dispatch(() -> this.delegate.onRotated(lease, previousGeneration, cause));
	}

	@Override
	public void onReplacementRejected(LeaseSnapshot lease, Exception failure) {
		dispatch(() -> this.delegate.onReplacementRejected(lease, failure));
	}

	@Override
	public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
		dispatch(() -> this.delegate.onLost(lease, reason, errorClass));
	}

	@Override
	public void onTimerLate(LeaseSnapshot lease, Duration lateness) {
		dispatch(() -> this.delegate.onTimerLate(lease, lateness));
	}

	@Override
	public void onStopped(LeaseSnapshot lease, boolean revoked) {
		dispatch(() -> this.delegate.onStopped(lease, revoked));
	}

	private void dispatch(Runnable notification) {
		try {
			this.executor.execute(() -> {
				try {
					notification.run();
				}
				catch (Throwable ex) {
					logger.warn("Lease '" + this.leaseName + "': listener " + this.delegate.getClass().getName()
							+ " failed", ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// shutting down: the notification is dropped
		}
	}

}
