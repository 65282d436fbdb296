package dev.leasekeeper.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
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
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Logging in with a TLS client certificate over HTTPS: the Vault client trusts Vault's CA
 * and presents the certificate of a Spring Boot SSL bundle
 * ({@code leasekeeper.vault.ssl-bundle}); at the token's max TTL it logs in again the
 * same way; the private key reaches no log line.
 */
class CertAuthenticationIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.tls()
			.databaseRole("orders", Duration.ofSeconds(20), Duration.ofHours(1))
			.certRole("orders-app", Duration.ofSeconds(4), Duration.ofSeconds(8)))
		.build();

	@Test
	void aClientCertificateLogsInOverTlsAndAtTheTokensMaxTtlLogsInAgain(@TempDir Path tls) throws Exception {
		VaultSimulator simulator = vault.simulator();
		simulator.clearJournal();
		VaultSimulator.ClientCertificate client = simulator.clientCertificate("orders-app", Duration.ofHours(1));
		Path certificate = Files.writeString(tls.resolve("client.crt"), client.certificate());
		Path key = Files.writeString(tls.resolve("client.key"), client.privateKey());
		Path ca = Files.writeString(tls.resolve("ca.crt"),
				"-----BEGIN CERTIFICATE-----\n"
						+ Base64.getMimeEncoder().encodeToString(simulator.caCertificate().getEncoded())
						+ "\n-----END CERTIFICATE-----\n");
		try (CapturedLogs logs = new CapturedLogs()) {
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(LeasekeeperAutoConfiguration.class, SslAutoConfiguration.class))
				.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class)
				.withPropertyValues("spring.ssl.bundle.pem.vault.keystore.certificate=file:" + certificate,
						"spring.ssl.bundle.pem.vault.keystore.private-key=file:" + key,
						"spring.ssl.bundle.pem.vault.truststore.certificate=file:" + ca,
						"leasekeeper.vault.uri=" + simulator.uri(), "leasekeeper.vault.ssl-bundle=vault",
						"leasekeeper.vault.authentication=cert", "leasekeeper.vault.cert.name=orders-app",
						"leasekeeper.leases.orders-db.path=database/creds/orders",
						"leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.expiry-buffer=300ms",
						"leasekeeper.defaults.attempt-timeout=500ms",
						"leasekeeper.defaults.retry.initial-interval=100ms",
						"leasekeeper.defaults.retry.max-interval=200ms")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					LeaseRenewer token = context.getBean("vaultTokenLeaseRenewer", LeaseRenewer.class);
					LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
					assertThat(orders.current().state()).isEqualTo(LeaseState.ACTIVE);
					await().atMost(Duration.ofSeconds(12)).until(() -> token.current().generation() == 2);
					await().atMost(Duration.ofSeconds(5))
						.until(() -> orders.current().generation() == 2
								&& orders.current().state() == LeaseState.ACTIVE);
					List<JournalEntry> logins = simulator.journal((entry) -> entry.path().equals("auth/cert/login"));
					assertThat(logins).hasSizeGreaterThanOrEqualTo(2)
						.allSatisfy((login) -> assertThat(login.status()).isEqualTo(200));
					assertThat(context.getBean(LeasekeeperAutoConfigurationTests.Events.class).of(LeaseLostEvent.class))
						.isEmpty();
				});
			assertThat(logs.text()).contains("obtained").doesNotContain("PRIVATE KEY");
		}
	}

	@Test
	void aCertLoginWithoutAnSslBundleStopsStartUpNamingTheProperty() {
		FailureReport report = new FailureReport();
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
			.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri(),
					"leasekeeper.vault.authentication=cert")
			.withInitializer(report)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(report.of(context.getStartupFailure())).contains("Property: leasekeeper.vault.ssl-bundle");
			});
	}

}
