package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Logging in with a GitHub personal access token, over real HTTP: the Vault token is kept
 * alive and, at its max TTL, obtained again by a new login, with the secret lease moved
 * to it; the access token never reaches the output.
 */
class GitHubAuthenticationIntegrationTests {

	private static final String ACCESS_TOKEN = "ghp_" + System.nanoTime();

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(20), Duration.ofHours(1))
			.gitHubUser(ACCESS_TOKEN, "octocat", true, Duration.ofSeconds(4), Duration.ofSeconds(8)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
		.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class)
		.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri(),
				"leasekeeper.vault.authentication=github", "leasekeeper.vault.github.token=" + ACCESS_TOKEN,
				"leasekeeper.leases.orders-db.path=database/creds/orders",
				"leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.expiry-buffer=300ms",
				"leasekeeper.defaults.attempt-timeout=500ms", "leasekeeper.defaults.retry.initial-interval=100ms",
				"leasekeeper.defaults.retry.max-interval=200ms");

	@Test
	void aMemberLogsInWithTheirAccessTokenAndAtTheTokensMaxTtlLogsInAgain() {
		vault.simulator().clearJournal();
		try (CapturedLogs logs = new CapturedLogs()) {
			logInWithGitHub(logs);
		}
	}

	private void logInWithGitHub(CapturedLogs logs) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			LeaseRenewer token = context.getBean("vaultTokenLeaseRenewer", LeaseRenewer.class);
			LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			assertThat(orders.current().state()).isEqualTo(LeaseState.ACTIVE);
			await().atMost(Duration.ofSeconds(12)).until(() -> token.current().generation() == 2);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> orders.current().generation() == 2 && orders.current().state() == LeaseState.ACTIVE);
			List<JournalEntry> logins = vault.simulator().journal((entry) -> entry.path().equals("auth/github/login"));
			assertThat(logins).hasSizeGreaterThanOrEqualTo(2)
				.allSatisfy((login) -> assertThat(login.status()).isEqualTo(200));
			assertThat(context.getBean(LeasekeeperAutoConfigurationTests.Events.class).of(LeaseLostEvent.class))
				.isEmpty();
			assertThat(logs.text()).contains("obtained").doesNotContain(ACCESS_TOKEN);
		});
	}

}
