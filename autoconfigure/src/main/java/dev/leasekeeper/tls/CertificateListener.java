package dev.leasekeeper.tls;

import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.CertificateRenewedEvent;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Hears a certificate's lease: publishes {@link CertificateRenewedEvent} on each re-issue
 * (on the events thread) and counts them.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class CertificateListener implements LeaseListener {

	private static final Log logger = LogFactory.getLog(CertificateListener.class);

	private final Object source;

	private final ApplicationEventPublisher publisher;

	private final Executor executor;

	private final AtomicLong reissues = new AtomicLong();

	/**
	 * Create a new listener.
	 * @param source the certificate's name, the source of its events
	 * @param publisher where events go
	 * @param executor the thread events are published on
	 */
	public CertificateListener(Object source, ApplicationEventPublisher publisher, Executor executor) {
		this.source = source;
		this.publisher = publisher;
		this.executor = executor;
	}

	/**
	 * Return how many times the certificate was re-issued.
	 * @return the count
	 */
	public long getReissues() {
		return this.reissues.get();
	}

	@Override
	public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
		reissued(lease);
	}

	@Override
	public void onAcquired(LeaseSnapshot lease) {
		if (lease.generation() > 1) {
			// a certificate issued after the previous one was lost
			reissued(lease);
		}
	}

	private void reissued(LeaseSnapshot lease) {
		this.reissues.incrementAndGet();
		String serial = String.valueOf(lease.data().get(CertificateSource.SERIAL_NUMBER));
		Instant notAfter = notAfter(lease);
		if (notAfter == null) {
			return;
		}
		CertificateRenewedEvent event = new CertificateRenewedEvent(this.source, lease, serial, notAfter);
		this.executor.execute(() -> {
			try {
				this.publisher.publishEvent(event);
			}
			catch (RuntimeException ex) {
				logger.warn("A listener of " + event + " failed", ex);
			}
		});
	}

	/**
	 * Return the {@code notAfter} of the certificate a lease holds.
	 * @param lease the certificate's lease
	 * @return its {@code notAfter}, or {@code null} when it holds none
	 */
	public static @Nullable Instant notAfter(LeaseSnapshot lease) {
		Object value = lease.data().get(CertificateSource.NOT_AFTER);
		return (value instanceof String text) ? Instant.parse(text) : null;
	}

}
