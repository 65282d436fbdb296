package dev.leasekeeper.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What outlives a grant holds no credential; the first-grant future is not kept once it
 * completed.
 */
class CredentialReferenceTests {

	private final EngineFixture fixture = new EngineFixture();

	@Test
	void theFirstGrantFutureHoldsNoCredential() throws Exception {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(24));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders"));
		assertThat(lease.current().data()).containsKeys("username", "password");
		LeaseSnapshot first = lease.firstGrant().get(1, TimeUnit.SECONDS);
		assertThat(first.generation()).isEqualTo(1);
		assertThat(first.leaseId()).isEqualTo(lease.current().leaseId());
		assertThat(first.data()).isEmpty();
	}

	@Test
	void aFutureAskedForBeforeTheFirstGrantCompletesWithItAndOneAskedForLaterWithTheLeaseAsItIsNow() throws Exception {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(24));
		ManagedLease lease = this.fixture.secretLease("orders", "orders").build();
		lease.start();
		java.util.concurrent.CompletableFuture<LeaseSnapshot> early = lease.firstGrant();
		assertThat(early).isNotDone();
		this.fixture.scheduler.runDue();
		assertThat(early.get(1, TimeUnit.SECONDS).generation()).isEqualTo(1);
		lease.rotateNow(RotationCause.REJECTED);
		this.fixture.scheduler.runDue();
		assertThat(lease.current().generation()).isEqualTo(2);
		LeaseSnapshot later = lease.firstGrant().get(1, TimeUnit.SECONDS);
		assertThat(later.generation()).isEqualTo(2);
		assertThat(later.leaseId()).isEqualTo(lease.current().leaseId());
		assertThat(later.data()).isEmpty();
	}

	@Test
	void aFirstGrantRefusedStaysFailedWhenAskedForLater() {
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "no-such-role"));
		assertThat(lease.firstGrant()).isCompletedExceptionally();
		assertThat(lease.firstGrant()).isCompletedExceptionally();
	}

}
