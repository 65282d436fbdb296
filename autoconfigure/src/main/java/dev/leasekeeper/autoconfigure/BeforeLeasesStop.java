package dev.leasekeeper.autoconfigure;

import org.springframework.context.SmartLifecycle;

/**
 * A lifecycle that does its work when the application stops, before the secret leases
 * stop (one phase above them): closing what must let go while the leases and the login
 * token are still held, such as draining pools or leaving a group.
 *
 * @author Leasekeeper
 */
final class BeforeLeasesStop implements SmartLifecycle {

	private final Runnable onStop;

	private volatile boolean running;

	BeforeLeasesStop(Runnable onStop) {
		this.onStop = onStop;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.onStop.run();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return ManagedLeaseRenewer.SECRET_PHASE + 1;
	}

}
