package dev.leasekeeper.event;

import java.time.Instant;
import java.util.concurrent.Executor;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.CeilingAction;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.RotationCause;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Turns what the engine hears into {@link LeaseEvent}s, published on an executor of their
 * own so that a slow or failing application listener never delays a renewal.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class EventPublishingLeaseListener implements LeaseListener {

	private static final Log logger = LogFactory.getLog(EventPublishingLeaseListener.class);

	private final Object source;

	private final ApplicationEventPublisher publisher;

	private final Executor executor;

	/**
	 * Create a new listener.
	 * @param source the source of the events (the lease's renewer)
	 * @param publisher where to publish
	 * @param executor the thread to publish on
	 */
	public EventPublishingLeaseListener(Object source, ApplicationEventPublisher publisher, Executor executor) {
		this.source = source;
		this.publisher = publisher;
		this.executor = executor;
	}

	@Override
	public void onRenewed(LeaseRenewal renewal) {
		publish(new LeaseRenewedEvent(this.source, renewal));
	}

	@Override
	public void onCeilingReached(LeaseSnapshot lease, Instant hardExpiry, CeilingAction action) {
		publish(new LeaseCeilingReachedEvent(this.source, lease, hardExpiry, action));
	}

	@Override
	public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
		publish(new LeaseRotatedEvent(this.source, lease, previousGeneration, cause));
	}

	@Override
	public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
		publish(new LeaseLostEvent(this.source, lease, reason, errorClass));
	}

	private void publish(LeaseEvent event) {
		this.executor.execute(() -> {
			try {
				this.publisher.publishEvent(event);
			}
			catch (RuntimeException ex) {
				logger.warn("A listener of " + event + " failed", ex);
			}
		});
	}

}
