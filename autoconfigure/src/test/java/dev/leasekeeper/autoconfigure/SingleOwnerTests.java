package dev.leasekeeper.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.vault.authentication.AppRoleAuthentication;
import org.springframework.vault.authentication.AppRoleAuthenticationOptions;
import org.springframework.vault.authentication.LifecycleAwareSessionManager;
import org.springframework.vault.authentication.event.AfterLoginEvent;
import org.springframework.vault.client.VaultClients;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;
import org.springframework.vault.core.lease.SecretLeaseContainer;
import org.springframework.vault.support.VaultToken;
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
			.appRole("app", "app-role", "app-secret", Duration.ofMinutes(10), Duration.ofHours(1)))
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
	void theApplicationsSessionManagerOwnsTheTokenAndItsLoginsRotateTheLeases() {
		this.runner
			.withUserConfiguration(SessionManagerConfiguration.class, LeasekeeperAutoConfigurationTests.Events.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean("vaultTokenLeaseRenewer");
				LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				assertThat(orders.current().generation()).isEqualTo(1);
				assertThat(vault.simulator().journal((entry) -> entry.path().equals("auth/token/renew-self")))
					.isEmpty();
				// the session manager logs in again (its token was replaced): the leases
				// of
				// the old token die with it
				context.getBean(LifecycleAwareSessionManager.class)
					.multicastEvent(new AfterLoginEvent(VaultToken.of("x")));
				await().atMost(Duration.ofSeconds(5)).until(() -> orders.current().generation() == 2);
				// the token changed hands: a rotation for the token, not one asked for by
				// hand
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				await().atMost(Duration.ofSeconds(2)).until(() -> !events.of(LeaseRotatedEvent.class).isEmpty());
				assertThat(events.of(LeaseRotatedEvent.class)).singleElement()
					.satisfies((rotated) -> assertThat(rotated.getCause()).isEqualTo(RotationCause.TOKEN));
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
