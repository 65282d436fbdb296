package dev.leasekeeper.autoconfigure;

import dev.leasekeeper.core.LeaseListener;

/**
 * A synchronous consumer of one declared lease (such as the pool refresher): its listener
 * is added to the lease before the event publisher, so that it takes each new credential
 * before the old one is released. Declare one as a bean to consume a lease.
 *
 * @param leaseName the name of the lease, as declared under {@code leasekeeper.leases}
 * @param listener the consumer
 * @author Leasekeeper
 * @since 0.1.0
 */
public record LeaseConsumer(String leaseName, LeaseListener listener) {

}
