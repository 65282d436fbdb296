package dev.leasekeeper.autoconfigure;

import dev.leasekeeper.core.LeaseListener;

/**
 * A provider of Leasekeeper's own listeners (metrics, actuator activity): they neither
 * block nor throw, and are told on the scheduling thread, in step with the lease.
 *
 * @author Leasekeeper
 */
final class InlineLeaseListenerProvider implements LeaseListenerProvider {

	private final LeaseListenerProvider delegate;

	InlineLeaseListenerProvider(LeaseListenerProvider delegate) {
		this.delegate = delegate;
	}

	@Override
	public LeaseListener listenerFor(String leaseName) {
		return this.delegate.listenerFor(leaseName);
	}

}
