package dev.leasekeeper.autoconfigure;

import dev.leasekeeper.tls.CertificateBundles;

import org.springframework.context.SmartLifecycle;

/**
 * Releases the certificates' SSL bundle updates once the web server has started, and
 * holds them before it stops: Tomcat takes an update that arrives while its connector
 * binds without making an {@code SSLContext} for it, and then serves no TLS until the
 * next re-issue. No bean depends on this one, so Spring starts it in its own phase, after
 * the web server's.
 *
 * @author Leasekeeper
 */
final class CertificateBundleUpdates implements SmartLifecycle {

	/**
	 * After the web server's phase ({@code DEFAULT_PHASE - 2048} for Boot's servlet and
	 * reactive servers) and its graceful shutdown's ({@code DEFAULT_PHASE - 1024}):
	 * started after them, stopped before them.
	 */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	private final CertificateBundles bundles;

	private volatile boolean running;

	CertificateBundleUpdates(CertificateBundles bundles) {
		this.bundles = bundles;
	}

	@Override
	public void start() {
		this.running = true;
		this.bundles.releaseUpdates();
	}

	@Override
	public void stop() {
		this.running = false;
		this.bundles.holdUpdates();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
