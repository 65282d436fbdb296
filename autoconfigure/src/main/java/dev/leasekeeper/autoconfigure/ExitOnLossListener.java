package dev.leasekeeper.autoconfigure;

import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseSnapshot;

/**
 * With {@code on-lost: exit}: when a lease is lost, closes the application context and
 * exits with a non-zero code, so that an orchestrator restarts the process. A worker that
 * cannot renew must stop, not spin.
 *
 * @author Leasekeeper
 */
final class ExitOnLossListener implements LeaseListener {

	private static final Log logger = LogFactory.getLog(ExitOnLossListener.class);

	/** The exit code when a lease is lost. */
	static final int EXIT_CODE = 75;

	private final LeasekeeperExit exit;

	private final AtomicBoolean exiting = new AtomicBoolean();

	ExitOnLossListener(LeasekeeperExit exit) {
		this.exit = exit;
	}

	@Override
	public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
		if (this.exiting.compareAndSet(false, true)) {
			logger.error("Lease '" + lease.name() + "' was lost (" + reason + ", " + errorClass
					+ ") and leasekeeper on-lost is exit: stopping the application with exit code " + EXIT_CODE);
			Thread thread = new Thread(() -> this.exit.exit(EXIT_CODE), "leasekeeper-exit");
			thread.start();
		}
	}

}
