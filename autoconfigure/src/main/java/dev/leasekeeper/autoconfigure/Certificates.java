package dev.leasekeeper.autoconfigure;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import dev.leasekeeper.tls.CertificateBundles;
import dev.leasekeeper.tls.CertificateListener;

import org.springframework.context.ApplicationEventPublisher;

/**
 * What the declared certificates share: the SSL bundles they feed and each one's listener
 * (its events and its re-issue count).
 *
 * @author Leasekeeper
 */
final class Certificates {

	private final CertificateBundles bundles;

	private final ApplicationEventPublisher publisher;

	private final Executor events;

	private final Map<String, CertificateListener> listeners = new ConcurrentHashMap<>();

	Certificates(CertificateBundles bundles, ApplicationEventPublisher publisher, Executor events) {
		this.bundles = bundles;
		this.publisher = publisher;
		this.events = events;
	}

	CertificateBundles bundles() {
		return this.bundles;
	}

	CertificateListener listener(String name) {
		return this.listeners.computeIfAbsent(name, (key) -> new CertificateListener(key, this.publisher, this.events));
	}

}
