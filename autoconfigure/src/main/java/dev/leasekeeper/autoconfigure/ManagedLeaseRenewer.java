package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.core.ManagedLease;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.SmartLifecycle;

/**
 * The {@code <leaseName>LeaseRenewer} bean: starts its lease when the bean is created, so
 * that the beans that need the credential get it, and waits for the first grant with
 * {@code leasekeeper.fail-fast}; revokes it when the context stops (secret leases before
 * the token, both after the web server has stopped).
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class ManagedLeaseRenewer implements LeaseRenewer, SmartLifecycle, InitializingBean, DisposableBean {

	/**
	 * Phase of the secret leases: stopped after the web server (graceful shutdown
	 * included).
	 */
	static final int SECRET_PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	/** Phase of the token: stopped after the secret leases obtained under it. */
	static final int TOKEN_PHASE = SECRET_PHASE - 1;

	private static final Log logger = LogFactory.getLog(ManagedLeaseRenewer.class);

	private final ManagedLease lease;

	private final boolean revokeOnShutdown;

	private final boolean failFast;

	private final Duration startupTimeout;

	private final Duration shutdownTimeout;

	private final int phase;

	private volatile boolean running;

	private boolean awaitAtStart;

	ManagedLeaseRenewer(ManagedLease lease, boolean revokeOnShutdown, boolean failFast, Duration startupTimeout,
			Duration shutdownTimeout, int phase) {
		this.lease = lease;
		this.revokeOnShutdown = revokeOnShutdown;
		this.failFast = failFast;
		this.startupTimeout = startupTimeout;
		this.shutdownTimeout = shutdownTimeout;
		this.phase = phase;
	}

	/**
	 * Wait for the first grant when the application starts rather than when this bean is
	 * made: for a lease that needs other beans to be ready first (a group lease's leader
	 * election runs on the application's lock registry, itself a bean).
	 */
	void awaitAtStart() {
		this.awaitAtStart = true;
	}

	@Override
	public void afterPropertiesSet() {
		this.lease.start();
		if (this.awaitAtStart) {
			// not running yet: Spring starts it, and it waits then
			return;
		}
		this.running = true;
		if (this.failFast) {
			awaitOrStop();
		}
	}

	private void awaitOrStop() {
		try {
			this.lease.firstGrant().get(this.startupTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			this.lease.stop(false);
			throw unavailable("could not be obtained within " + this.startupTimeout + " (last error: "
					+ this.lease.getLastErrorClass() + ")");
		}
		catch (ExecutionException ex) {
			this.lease.stop(false);
			throw unavailable("was refused by Vault: " + ex.getCause().getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw unavailable("was interrupted while being obtained");
		}
	}

	/**
	 * Wait for the lease's first grant, as {@code leasekeeper.fail-fast} does at
	 * start-up, whatever that setting: for what cannot start without it (an SSL bundle).
	 * @throws LeaseUnavailableException if it was refused or did not come within the
	 * start-up timeout
	 */
	void awaitFirstGrant() {
		try {
			this.lease.firstGrant().get(this.startupTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw unavailable("could not be obtained within " + this.startupTimeout + " (last error: "
					+ this.lease.getLastErrorClass() + ")");
		}
		catch (ExecutionException ex) {
			throw unavailable("was refused by Vault: " + ex.getCause().getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw unavailable("was interrupted while being obtained");
		}
	}

	private LeaseUnavailableException unavailable(String what) {
		return new LeaseUnavailableException(getName(), describe(),
				"Lease '" + getName() + "' (" + describe() + ") " + what);
	}

	/**
	 * Return the engine's lease behind this bean.
	 * @return the lease
	 */
	public ManagedLease getLease() {
		return this.lease;
	}

	@Override
	public String getName() {
		return this.lease.getName();
	}

	@Override
	public LeaseSnapshot current() {
		return this.lease.current();
	}

	@Override
	public LeaseSnapshot requireValidFor(Duration duration) {
		return this.lease.requireValidFor(duration);
	}

	@Override
	public void renewNow() {
		this.lease.renewNow();
	}

	@Override
	public void rotateNow(RotationCause cause) {
		this.lease.rotateNow(cause);
	}

	@Override
	public String describe() {
		return this.lease.describe();
	}

	@Override
	public void start() {
		this.running = true;
		if (this.failFast && this.awaitAtStart && !this.lease.firstGrant().isDone()) {
			awaitOrStop();
		}
	}

	@Override
	public void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		try {
			this.lease.stop(this.revokeOnShutdown).get(this.shutdownTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			logger.warn("Lease '" + getName() + "' was not revoked within " + this.shutdownTimeout
					+ "; its TTL will end it");
		}
		catch (ExecutionException ex) {
			logger.warn("Lease '" + getName() + "' could not be stopped", ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Stop the lease without waiting: Spring stops every lease of a phase this way, in
	 * parallel, and waits for their callbacks, so that shutdown takes one
	 * {@code shutdown-timeout} for all rather than one per lease.
	 * @param callback told when the lease stopped, or its shutdown timeout passed
	 */
	@Override
	public void stop(Runnable callback) {
		if (!this.running) {
			callback.run();
			return;
		}
		this.running = false;
		this.lease.stop(this.revokeOnShutdown)
			.orTimeout(this.shutdownTimeout.toNanos(), TimeUnit.NANOSECONDS)
			.whenComplete((result, failure) -> {
				if (failure instanceof TimeoutException) {
					logger.warn("Lease '" + getName() + "' was not revoked within " + this.shutdownTimeout
							+ "; its TTL will end it");
				}
				else if (failure != null) {
					logger.warn("Lease '" + getName() + "' could not be stopped", failure);
				}
				callback.run();
			});
	}

	/**
	 * Stop the lease if the context never started (a failed start-up): its grant is
	 * revoked all the same.
	 */
	@Override
	public void destroy() {
		stop();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return this.phase;
	}

	@Override
	public String toString() {
		return "ManagedLeaseRenewer[" + getName() + "]";
	}

}
