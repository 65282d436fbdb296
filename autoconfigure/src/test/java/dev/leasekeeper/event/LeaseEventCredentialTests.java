package dev.leasekeeper.event;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.core.RotationCause;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Events may be queued, or kept by a listener, long after their grant: they never hold
 * the credential.
 */
class LeaseEventCredentialTests {

	private static final Instant NOW = Instant.parse("2026-01-05T09:00:00Z");

	private static final LeaseSnapshot LEASE = new LeaseSnapshot("orders", 2, "database/creds/orders/abc",
			LeaseState.ACTIVE, NOW, Duration.ofHours(1), NOW.plusSeconds(3600), NOW.plusSeconds(3590),
			NOW.plusSeconds(2400), Map.of("username", "v-orders", "password", "hunter2"));

	@Test
	void aRotatedOrRenewedEventKeepsTheLeaseWithoutItsCredential() {
		LeaseRotatedEvent rotated = new LeaseRotatedEvent(this, LEASE, 1, RotationCause.CEILING);
		assertThat(rotated.getLease().data()).isEmpty();
		assertThat(rotated.getLease().leaseId()).isEqualTo(LEASE.leaseId());
		LeaseRenewedEvent renewed = new LeaseRenewedEvent(this, new LeaseRenewal(LEASE, NOW.plusSeconds(60),
				NOW.plusSeconds(3600), Duration.ofHours(1), Duration.ofSeconds(60), 1, false));
		assertThat(renewed.getLease().data()).isEmpty();
		assertThat(renewed.getNewExpiry()).isEqualTo(NOW.plusSeconds(3600));
		assertThat(renewed.toString()).doesNotContain("hunter2");
	}

}
