package dev.leasekeeper.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.vault.authentication.ClientAuthentication;
import org.springframework.vault.support.VaultToken;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Logging in as a Kubernetes pod, over real HTTP: the service account token is read from
 * its file at every login, so that after Kubernetes rotated it the re-login at the
 * token's ceiling sends the new one (a stale JWT broke re-login in Spring Cloud Vault,
 * gh-339); and an application's own {@link ClientAuthentication} is used as it is.
 */
class KubernetesAuthenticationIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(20), Duration.ofHours(1))
			.kubernetesRole("orders-app", "orders", "shop", Duration.ofSeconds(4), Duration.ofSeconds(8)))
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
	void aPodLogsInWithItsServiceAccountTokenAndAfterKubernetesRotatedItLogsInAgainWithTheNewOne(
			@TempDir Path serviceAccount) throws Exception {
		try (CapturedLogs logs = new CapturedLogs()) {
			logInWithKubernetes(serviceAccount, logs);
		}
	}

	private void logInWithKubernetes(Path serviceAccount, CapturedLogs logs) throws Exception {
		VaultSimulator simulator = vault.simulator();
		simulator.clearJournal();
		Path tokenFile = serviceAccount.resolve("token");
		String mounted = simulator.serviceAccountToken("shop", "orders");
		Files.writeString(tokenFile, mounted);
		this.runner
			.withPropertyValues("leasekeeper.vault.authentication=kubernetes",
					"leasekeeper.vault.kubernetes.role=orders-app",
					"leasekeeper.vault.kubernetes.service-account-token-file=" + tokenFile)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeaseRenewer token = context.getBean("vaultTokenLeaseRenewer", LeaseRenewer.class);
				LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				assertThat(token.current().generation()).isEqualTo(1);
				assertThat(orders.current().state()).isEqualTo(LeaseState.ACTIVE);
				// Kubernetes rotates the projected token; the cluster stops vouching for
				// the old one
				String rotated = simulator.serviceAccountToken("shop", "orders");
				Files.writeString(tokenFile, rotated);
				simulator.invalidateServiceAccountToken(mounted);
				// at the token's 8 s max TTL: a new login, with the token read again
				await().atMost(Duration.ofSeconds(12)).until(() -> token.current().generation() == 2);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> orders.current().generation() == 2 && orders.current().state() == LeaseState.ACTIVE);
				List<JournalEntry> logins = simulator.journal((entry) -> entry.path().equals("auth/kubernetes/login"));
				// the re-login sent the token Kubernetes mounted last: none was refused
				assertThat(logins).hasSizeGreaterThanOrEqualTo(2)
					.allSatisfy((login) -> assertThat(login.status()).isEqualTo(200));
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				assertThat(events.of(LeaseLostEvent.class)).isEmpty();
				assertThat(logs.text()).contains("obtained").doesNotContain(mounted, rotated);
			});
	}

	@Test
	void aMissingServiceAccountTokenFileStopsStartUpNamingTheProperty(@TempDir Path serviceAccount) {
		FailureReport report = new FailureReport();
		Path missing = serviceAccount.resolve("token");
		this.runner
			.withPropertyValues("leasekeeper.vault.authentication=kubernetes",
					"leasekeeper.vault.kubernetes.role=orders-app",
					"leasekeeper.vault.kubernetes.service-account-token-file=" + missing)
			.withInitializer(report)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(report.of(context.getStartupFailure())).contains(
						"Property: leasekeeper.vault.kubernetes.service-account-token-file",
						"Value: \"" + missing + "\"");
			});
	}

	@Test
	void anApplicationsOwnClientAuthenticationIsUsedAsItIs() {
		vault.simulator().clearJournal();
		this.runner.withUserConfiguration(OwnAuthentication.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(OwnAuthentication.class).logins).hasPositiveValue();
			LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			assertThat(orders.current().state()).isEqualTo(LeaseState.ACTIVE);
			assertThat(vault.simulator().journal((entry) -> entry.path().startsWith("auth/kubernetes/"))).isEmpty();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnAuthentication {

		final AtomicInteger logins = new AtomicInteger();

		@Bean
		ClientAuthentication applicationAuthentication() {
			return () -> {
				this.logins.incrementAndGet();
				return VaultToken
					.of(vault.simulator().createToken(Duration.ofMinutes(10), VaultSimulator.APPLICATION_POLICY));
			};
		}

	}

}
