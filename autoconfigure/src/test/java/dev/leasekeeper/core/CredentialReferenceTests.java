package dev.leasekeeper.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What outlives a grant holds no credential: the first-grant future lives as long as the
 * lease.
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

}
