package dev.leasekeeper.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulator;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Logging in with a workload's JWT, over real HTTP: the JWT is read from its file at
 * every login, so that when the token reaches its max TTL the new login sends the JWT the
 * identity provider wrote last (the first one has expired by then); neither reaches a log
 * line.
 */
class JwtAuthenticationIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(20), Duration.ofHours(1))
			.jwtRole("orders-app", "orders-service", Duration.ofSeconds(4), Duration.ofSeconds(8)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
		.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class)
		.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri(),
				"leasekeeper.leases.orders-db.path=database/creds/orders",
				"leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.expiry-buffer=300ms",
				"leasekeeper.defaults.attempt-timeout=500ms", "leasekeeper.defaults.retry.initial-interval=100ms",
				"leasekeeper.defaults.retry.max-interval=200ms");

	@Test
	void aWorkloadLogsInWithItsJwtAndAtTheTokensMaxTtlWithTheOneWrittenSince(@TempDir Path identity) throws Exception {
		VaultSimulator simulator = vault.simulator();
		simulator.clearJournal();
		Path tokenFile = identity.resolve("jwt");
		// valid for about 4 s, Vault's leeway included: expired by the re-login
		String first = simulator.signJwt("orders-7f9c", "orders-service", Duration.ofSeconds(-146));
		Files.writeString(tokenFile, first);
		try (CapturedLogs logs = new CapturedLogs()) {
			this.runner
				.withPropertyValues("leasekeeper.vault.authentication=jwt", "leasekeeper.vault.jwt.role=orders-app",
						"leasekeeper.vault.jwt.token-file=" + tokenFile)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					LeaseRenewer token = context.getBean("vaultTokenLeaseRenewer", LeaseRenewer.class);
					LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
					assertThat(orders.current().state()).isEqualTo(LeaseState.ACTIVE);
					String second = simulator.signJwt("orders-7f9c", "orders-service", Duration.ofMinutes(5));
					Files.writeString(tokenFile, second);
					await().atMost(Duration.ofSeconds(12)).until(() -> token.current().generation() == 2);
					await().atMost(Duration.ofSeconds(5))
						.until(() -> orders.current().generation() == 2
								&& orders.current().state() == LeaseState.ACTIVE);
					List<JournalEntry> logins = simulator.journal((entry) -> entry.path().equals("auth/jwt/login"));
					assertThat(logins).hasSizeGreaterThanOrEqualTo(2)
						.allSatisfy((login) -> assertThat(login.status()).isEqualTo(200));
					assertThat(context.getBean(LeasekeeperAutoConfigurationTests.Events.class).of(LeaseLostEvent.class))
						.isEmpty();
					assertThat(logs.text()).contains("obtained").doesNotContain(first, second);
				});
		}
	}

	@Test
	void aJwtLoginWithoutAJwtStopsStartUpNamingTheProperty() {
		FailureReport report = new FailureReport();
		this.runner.withPropertyValues("leasekeeper.vault.authentication=jwt", "leasekeeper.vault.jwt.role=orders-app")
			.withInitializer(report)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(report.of(context.getStartupFailure()))
					.contains("Property: leasekeeper.vault.jwt.token-file");
			});
	}

}
