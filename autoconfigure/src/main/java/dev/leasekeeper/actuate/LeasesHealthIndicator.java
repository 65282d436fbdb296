package dev.leasekeeper.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseState;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code leasekeeper} health: UP while every lease holds a grant it can renew,
 * OUT_OF_SERVICE while a lease has been failing for more than half of the time its grant
 * had left when the failures began, DOWN when one is expired or lost. Usable in the
 * readiness group. Details hold no secret.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class LeasesHealthIndicator extends AbstractHealthIndicator {

	private final Map<String, LeaseRenewer> leases;

	private final LeaseActivity activity;

	private final Supplier<Instant> clock;

	/**
	 * Create a new indicator.
	 * @param leases the leases by name
	 * @param activity what each lease did last
	 * @param clock the engine's clock
	 */
	public LeasesHealthIndicator(Map<String, LeaseRenewer> leases, LeaseActivity activity, Supplier<Instant> clock) {
		super("Leasekeeper health check failed");
		this.leases = leases;
		this.activity = activity;
		this.clock = clock;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Status status = Status.UP;
		Map<String, Object> details = new LinkedHashMap<>();
		for (LeaseRenewer renewer : this.leases.values()) {
			LeaseSnapshot lease = renewer.current();
			Status own = statusOf(renewer.getName(), lease);
			if (severity(own) > severity(status)) {
				status = own;
			}
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("status", own.getCode());
			detail.put("state", lease.state().name());
			detail.put("generation", lease.generation());
			if (lease.validUntil() != null) {
				detail.put("validUntil", lease.validUntil().toString());
			}
			details.put(renewer.getName(), detail);
		}
		builder.status(status).withDetails(details);
	}

	private Status statusOf(String name, LeaseSnapshot lease) {
		LeaseState state = lease.state();
		if (!state.holdsGrant()) {
			return Status.DOWN;
		}
		Instant failingSince = this.activity.of(name).getFailingSince();
		if (state == LeaseState.RETRYING && failingSince != null && lease.validUntil() != null) {
			Duration margin = Duration.between(failingSince, lease.validUntil());
			if (this.clock.get().isAfter(failingSince.plus(margin.dividedBy(2)))) {
				return Status.OUT_OF_SERVICE;
			}
		}
		return Status.UP;
	}

	private static int severity(Status status) {
		if (Status.DOWN.equals(status)) {
			return 2;
		}
		return Status.OUT_OF_SERVICE.equals(status) ? 1 : 0;
	}

}
