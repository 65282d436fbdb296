package dev.leasekeeper.autoconfigure;

import dev.leasekeeper.core.LeaseListener;

/**
 * Gives each declared lease (and the token) a listener of its own, such as the metrics.
 * Declare one as a bean to hear every lease; its listeners are called after the
 * synchronous consumers.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@FunctionalInterface
public interface LeaseListenerProvider {

	/**
	 * Return the listener for a lease.
	 * @param leaseName the lease's name ({@code vault-token} for the token)
	 * @return the listener
	 */
	LeaseListener listenerFor(String leaseName);

}
