package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulator;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Logging in with a response-wrapped token, over real HTTP: it is unwrapped once, the
 * token it held is kept alive like any other, start-up warns that no second login is
 * possible, and the wrapping token reaches no log line.
 */
class CubbyholeAuthenticationIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(20), Duration.ofHours(1)))
		.build();

	@Test
	void aWrappedTokenIsUnwrappedOnceAndKeptAlive() {
		VaultSimulator simulator = vault.simulator();
		simulator.clearJournal();
		String wrapping = simulator.wrappedToken(Duration.ofMinutes(5), Duration.ofSeconds(4),
				VaultSimulator.APPLICATION_POLICY);
		try (CapturedLogs logs = new CapturedLogs()) {
			new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
				.withPropertyValues("leasekeeper.vault.uri=" + simulator.uri(),
						"leasekeeper.vault.authentication=cubbyhole",
						"leasekeeper.vault.cubbyhole.wrapped-token=" + wrapping,
						"leasekeeper.leases.orders-db.path=database/creds/orders",
						"leasekeeper.defaults.first-renewal-spread=0")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					LeaseRenewer token = context.getBean("vaultTokenLeaseRenewer", LeaseRenewer.class);
					LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
					assertThat(orders.current().state()).isEqualTo(LeaseState.ACTIVE);
					// the 4 s token is renewed, not obtained again
					org.awaitility.Awaitility.await()
						.atMost(Duration.ofSeconds(10))
						.until(() -> !simulator
							.journal((entry) -> entry.path().equals("auth/token/renew-self") && entry.status() == 200)
							.isEmpty());
					assertThat(token.current().generation()).isEqualTo(1);
					List<JournalEntry> unwraps = simulator
						.journal((entry) -> entry.path().equals("sys/wrapping/unwrap"));
					assertThat(unwraps).hasSize(1).allSatisfy((entry) -> assertThat(entry.status()).isEqualTo(200));
				});
			assertThat(logs.text()).contains("cannot log in again").doesNotContain(wrapping);
		}
	}

}
