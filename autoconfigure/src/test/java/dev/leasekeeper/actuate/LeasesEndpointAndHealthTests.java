package dev.leasekeeper.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import dev.leasekeeper.autoconfigure.LeasekeeperActuatorAutoConfiguration;
import dev.leasekeeper.autoconfigure.LeasekeeperAutoConfiguration;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/leases} and the {@code leasekeeper} health indicator against the
 * simulator.
 */
class LeasesEndpointAndHealthTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(6), Duration.ofHours(1)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(LeasekeeperAutoConfiguration.class, LeasekeeperActuatorAutoConfiguration.class))
		.withPropertyValues(vault.propertyValues())
		.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders",
				"leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.expiry-buffer=300ms",
				"leasekeeper.defaults.attempt-timeout=500ms", "leasekeeper.defaults.retry.initial-interval=100ms",
				"leasekeeper.defaults.retry.max-interval=200ms");

	@Test
	void theEndpointListsEveryLeaseWithoutSecrets() {
		this.runner.run((context) -> {
			LeasesEndpoint endpoint = context.getBean(LeasesEndpoint.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			String json = JsonMapper.builder().build().writeValueAsString(endpoint.leases());
			assertThat(json).contains("\"name\":\"orders-db\"", "\"kind\":\"secret\"",
					"\"path\":\"database/creds/orders\"", "\"state\":\"ACTIVE\"", "\"generation\":1",
					"\"kind\":\"token\"", "\"expiresAt\"", "\"nextRenewalAt\"", "\"lastOutcome\":\"acquired\"");
			assertThat(json).doesNotContain((String) renewer.current().data().get("password"))
				.doesNotContain((String) renewer.current().data().get("username"))
				.doesNotContain(vault.simulator().rootToken())
				.doesNotContain(vault.applicationToken())
				.doesNotContain(renewer.current().leaseId());
			assertThat(endpoint.lease("orders-db").leaseId()).startsWith("database/creds/orders/****");
			assertThat(endpoint.lease("nope")).isNull();
			endpoint.act("orders-db", "rotate");
			// the outcome follows the swap on the scheduling thread
			await().atMost(Duration.ofSeconds(5))
				.until(() -> endpoint.lease("orders-db").generation() == 2
						&& "rotated".equals(endpoint.lease("orders-db").lastOutcome()));
		});
	}

	@Test
	void aRotationAskedForWhileOneIsInFlightIsRefused() {
		this.runner.run((context) -> {
			LeasesEndpoint endpoint = context.getBean(LeasesEndpoint.class);
			// within the 500 ms attempt timeout
			vault.simulator()
				.latency((path) -> path.startsWith("database/creds/") ? Duration.ofMillis(400) : Duration.ZERO);
			vault.simulator().clearJournal();
			try {
				endpoint.act("orders-db", "rotate");
				await().pollInterval(Duration.ofMillis(10))
					.atMost(Duration.ofSeconds(2))
					.until(() -> endpoint.lease("orders-db").state().equals("ROTATING"));
				assertThatExceptionOfType(InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.act("orders-db", "rotate"))
					.withMessageContaining("already obtaining a new credential");
				await().atMost(Duration.ofSeconds(5)).until(() -> endpoint.lease("orders-db").generation() == 2);
				// one new credential was asked for
				assertThat(vault.simulator().journal((entry) -> entry.path().equals("database/creds/orders")))
					.hasSize(1);
			}
			finally {
				vault.simulator().latency(Duration.ZERO);
			}
		});
	}

	@Test
	void healthGoesUpThenOutOfServiceThenDownThenUpAgain() {
		this.runner.run((context) -> {
			LeasesHealthIndicator health = context.getBean("leasekeeperHealthIndicator", LeasesHealthIndicator.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			List<Status> seen = new ArrayList<>();
			seen.add(health.health(true).getStatus());
			vault.simulator().outage(true);
			try {
				renewer.renewNow();
				await().atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(20)).until(() -> {
					Status status = health.health(true).getStatus();
					if (!status.equals(seen.get(seen.size() - 1))) {
						seen.add(status);
					}
					return Status.DOWN.equals(status);
				});
			}
			finally {
				vault.simulator().outage(false);
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> Status.UP.equals(health.health(true).getStatus()));
			seen.add(Status.UP);
			assertThat(seen).containsSubsequence(Status.UP, Status.OUT_OF_SERVICE, Status.DOWN, Status.UP);
			assertThat(health.health(true).getDetails()).containsKey("orders-db");
		});
	}

}
