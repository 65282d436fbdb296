package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.testkit.VaultSimulator;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An operator narrows the application's policy while it runs, with every default: the
 * lease whose path the policy no longer names keeps its credential until it expires at
 * its ceiling, then is reported lost once; the token is checked, not replaced; the other
 * lease goes on renewing on its first credential; nothing rotates in a loop.
 */
class PolicyNarrowedIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(30), Duration.ofHours(1))
			.databaseRole("reports", Duration.ofSeconds(6), Duration.ofSeconds(12)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
		.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class);

	@Test
	void aPathRemovedFromThePolicyLosesThatLeaseAloneAndRotatesNothing() {
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders",
					"leasekeeper.leases.reports-db.path=database/creds/reports")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				LeaseRenewer reports = context.getBean("reportsDbLeaseRenewer", LeaseRenewer.class);
				String ordersLease = orders.current().leaseId();
				VaultSimulator simulator = vault.simulator();
				// the same policy without reports
				simulator.writePolicy(VaultSimulator.APPLICATION_POLICY, VaultSimulator.applicationPolicy("orders"));
				// reports reaches its 12 s ceiling and may not be obtained again
				await().atMost(Duration.ofSeconds(20)).until(() -> !events.of(LeaseLostEvent.class).isEmpty());
				assertThat(events.of(LeaseLostEvent.class)).singleElement().satisfies((lost) -> {
					assertThat(lost.getLeaseName()).isEqualTo("reports-db");
					// kept until it expired, as its replacement was refused
					assertThat(lost.getReason()).hasToString("EXPIRED");
					assertThat(lost.getErrorClass()).isEqualTo("permission-denied");
				});
				// obtaining it again is refused too: then the path is tried again only
				// after a long back-off, not in a loop
				await().atMost(Duration.ofSeconds(5)).until(() -> {
					LeaseSnapshot lease = reports.current();
					return lease.state() == LeaseState.LOST && lease.nextActionAt() != null
							&& lease.nextActionAt().isAfter(Instant.now().plusSeconds(20));
				});
				assertThat(events.of(LeaseLostEvent.class)).hasSize(1);
				assertThat(events.of(LeaseRotatedEvent.class)).isEmpty();
				assertThat(orders.current().generation()).isEqualTo(1);
				assertThat(orders.current().leaseId()).isEqualTo(ordersLease);
				assertThat(simulator.isLeaseAlive(ordersLease)).isTrue();
				// refused at the ceiling, once more after the token was found valid, once
				// after the loss: then the back-off
				assertThat(simulator
					.journal((entry) -> entry.path().equals("database/creds/reports") && entry.status() == 403))
					.hasSizeLessThanOrEqualTo(3);
				assertThat(simulator.journal((entry) -> entry.path().equals("auth/token/lookup-self")))
					.hasSizeLessThanOrEqualTo(3);
			});
	}

}
