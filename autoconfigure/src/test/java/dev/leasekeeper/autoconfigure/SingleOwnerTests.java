package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.vault.authentication.AppRoleAuthentication;
import org.springframework.vault.authentication.AppRoleAuthenticationOptions;
import org.springframework.vault.authentication.LifecycleAwareSessionManager;
import org.springframework.vault.client.VaultClients;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;
import org.springframework.vault.core.lease.SecretLeaseContainer;
import org.springframework.web.client.RestTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Exactly one owner per lease and for the token.
 */
class SingleOwnerTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1))
			.appRole("app", "app-role", "app-secret", Duration.ofSeconds(12), Duration.ofSeconds(24)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
		.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri(),
				"leasekeeper.leases.orders-db.path=database/creds/orders");

	@Test
	void aPathAlsoRenewedByASecretLeaseContainerFailsStartUpNamingBothSides() {
		this.runner.withPropertyValues("leasekeeper.vault.token=" + vault.simulator().rootToken())
			.withUserConfiguration(ContainerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasMessageContaining("'database/creds/orders'")
					.hasMessageContaining("leasekeeper.leases.orders-db")
					.hasMessageContaining("secretLeaseContainer")
					.hasMessageContaining("spring.cloud.vault.database.enabled=false");
			});
	}

	@Test
	void theApplicationsSessionManagerOwnsTheTokenAndLeasekeeperFollowsItsExpiryAndItsLogins() {
		vault.simulator().clearJournal();
		this.runner
			.withUserConfiguration(SessionManagerConfiguration.class, LeasekeeperAutoConfigurationTests.Events.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean("vaultTokenLeaseRenewer");
				LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				assertThat(orders.current().generation()).isEqualTo(1);
				String firstToken = vault.simulator()
					.journal((entry) -> entry.path().equals("database/creds/orders"))
					.get(0)
					.accessor();
				// the database role grants 10 minutes, the session's token 12 s: the
				// lease ends with the token, which Leasekeeper learnt without renewing it
				await().atMost(Duration.ofSeconds(5))
					.until(() -> orders.current()
						.expiry()
						.isBefore(context.getBean(LeaseScheduler.class).now().plusSeconds(13)));
				// the session manager renews its token up to the maximum TTL (24 s), then
				// logs in again: the lease moves to the new token before the old one ends
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				await().atMost(Duration.ofSeconds(60)).until(() -> !events.of(LeaseRotatedEvent.class).isEmpty());
				assertThat(events.of(LeaseRotatedEvent.class)).first()
					.satisfies((rotated) -> assertThat(rotated.getCause()).isEqualTo(RotationCause.TOKEN));
				assertThat(events.of(LeaseLostEvent.class)).isEmpty();
				List<JournalEntry> obtained = vault.simulator()
					.journal((entry) -> entry.path().equals("database/creds/orders") && entry.status() == 200);
				assertThat(obtained).hasSizeGreaterThanOrEqualTo(2);
				assertThat(obtained.get(obtained.size() - 1).accessor()).isNotEqualTo(firstToken);
				// Leasekeeper renewed neither the token nor made it log in on its own
				// account: every renew-self is the session manager's, on its token
				assertThat(vault.simulator().journal((entry) -> entry.path().equals("auth/token/renew-self")))
					.isNotEmpty();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class ContainerConfiguration {

		@Bean
		SecretLeaseContainer secretLeaseContainer() {
			SecretLeaseContainer container = new SecretLeaseContainer(new VaultTemplate(
					VaultEndpoint.from(vault.simulator().uri()),
					new org.springframework.vault.authentication.TokenAuthentication(vault.simulator().rootToken())));
			container.requestRenewableSecret("database/creds/orders");
			return container;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SessionManagerConfiguration {

		@Bean(destroyMethod = "shutdown")
		ThreadPoolTaskScheduler vaultTaskScheduler() {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.initialize();
			return scheduler;
		}

		@Bean
		LifecycleAwareSessionManager sessionManager(ThreadPoolTaskScheduler vaultTaskScheduler) {
			VaultEndpoint endpoint = VaultEndpoint.from(vault.simulator().uri());
			RestTemplate rest = VaultClients.createRestTemplate(endpoint,
					new org.springframework.http.client.SimpleClientHttpRequestFactory());
			AppRoleAuthentication login = new AppRoleAuthentication(AppRoleAuthenticationOptions.builder()
				.roleId(AppRoleAuthenticationOptions.RoleId.provided("app-role"))
				.secretId(AppRoleAuthenticationOptions.SecretId.provided("app-secret"))
				.build(), rest);
			return new LifecycleAwareSessionManager(login, vaultTaskScheduler, rest);
		}

	}

}
