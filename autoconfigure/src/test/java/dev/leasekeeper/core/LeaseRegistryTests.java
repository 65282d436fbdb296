package dev.leasekeeper.core;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LeaseRegistryTests {

	private final EngineFixture fixture = new EngineFixture();

	@Test
	void leasesAreFoundByName() {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(768));
		ManagedLease orders = this.fixture.secretLease("orders-db", "orders").build();
		LeaseRegistry registry = new LeaseRegistry(List.of(orders));
		assertThat(registry.get("orders-db")).containsSame(orders);
		assertThat(registry.get("missing")).isEmpty();
		assertThat(registry.all()).containsExactly(orders);
	}

	@Test
	void aNameDeclaredTwiceIsRejected() {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(768));
		ManagedLease first = this.fixture.secretLease("orders-db", "orders").build();
		ManagedLease second = this.fixture.secretLease("orders-db", "orders").build();
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseRegistry(List.of(first, second)))
			.withMessageContaining("'orders-db' is declared twice");
	}

	@Test
	void stopRevokesSecretLeasesBeforeTheirToken() {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(768));
		ManagedLease[] token = new ManagedLease[1];
		token[0] = ManagedLease
			.builder("token", this.fixture.vault.tokens(Duration.ofHours(1), Duration.ofHours(24)),
					this.fixture.scheduler)
			.random(new SplittableRandom(1))
			.build();
		ManagedLease secret = ManagedLease
			.builder("orders-db",
					this.fixture.vault.secrets("orders", () -> (String) token[0].current().data().get("token")),
					this.fixture.scheduler)
			.token(token[0])
			.build();
		LeaseRegistry registry = new LeaseRegistry(List.of(token[0], secret));
		registry.start();
		this.fixture.scheduler.runDue();
		assertThat(secret.current().generation()).isEqualTo(1);
		var secretsStopped = registry.stopSecretLeases(true);
		this.fixture.scheduler.runDue();
		assertThat(secretsStopped).isDone();
		var tokensStopped = registry.stopTokenLeases(true);
		this.fixture.scheduler.runDue();
		assertThat(tokensStopped).isDone();
		assertThat(secret.current().state()).isEqualTo(LeaseState.REVOKED);
		assertThat(token[0].current().state()).isEqualTo(LeaseState.REVOKED);
		assertThat(this.fixture.vault.journal()).extracting(InMemoryVault.Call::operation)
			.containsSubsequence("revoke", "revoke-self");
	}

}
