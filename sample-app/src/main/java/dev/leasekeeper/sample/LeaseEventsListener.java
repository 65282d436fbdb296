package dev.leasekeeper.sample;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.leasekeeper.event.LeaseCeilingReachedEvent;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRenewedEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * What a team does with Leasekeeper's events: log them, count them, and raise an alert
 * when a lease is lost. None of them carries a secret.
 */
@Component
class LeaseEventsListener {

	private static final Log logger = LogFactory.getLog(LeaseEventsListener.class);

	private final MeterRegistry meters;

	private final LeaseTimeline timeline;

	LeaseEventsListener(MeterRegistry meters, LeaseTimeline timeline) {
		this.meters = meters;
		this.timeline = timeline;
	}

	@EventListener
	void renewed(LeaseRenewedEvent event) {
		count("renewed", event.getLeaseName());
		this.timeline.event(event.getLeaseName(), "renewed", event.getGeneration(),
				"granted " + event.getGrantedTtl().toSeconds() + " s");
		logger.debug("Renewed " + event.getLeaseName() + " generation " + event.getGeneration());
	}

	@EventListener
	void ceilingReached(LeaseCeilingReachedEvent event) {
		count("ceiling", event.getLeaseName());
		this.timeline.event(event.getLeaseName(), "ceiling", event.getGeneration(),
				"hard expiry " + event.getHardExpiry() + ", " + event.getAction().name().toLowerCase());
		logger.info("Lease " + event.getLeaseName() + " reached its ceiling: it ends at " + event.getHardExpiry());
	}

	@EventListener
	void rotated(LeaseRotatedEvent event) {
		count("rotated", event.getLeaseName());
		this.timeline.event(event.getLeaseName(), "rotated", event.getGeneration(),
				"generation " + event.getPreviousGeneration() + " → " + event.getGeneration() + " ("
						+ event.getCause().name().toLowerCase() + ")");
		logger.info("Lease " + event.getLeaseName() + " rotated to generation " + event.getGeneration() + " ("
				+ event.getCause() + ")");
	}

	@EventListener
	void lost(LeaseLostEvent event) {
		count("lost", event.getLeaseName());
		this.timeline.event(event.getLeaseName(), "lost", event.getGeneration(), event.getReason().name());
		// the alert: page someone (here, an ERROR line a log alert rule matches)
		logger.error("ALERT lease " + event.getLeaseName() + " generation " + event.getGeneration() + " lost: "
				+ event.getReason());
	}

	private void count(String type, String lease) {
		this.meters.counter("sample.lease.events", "type", type, "lease", lease).increment();
	}

}
