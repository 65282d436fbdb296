package dev.leasekeeper.autoconfigure;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import javax.sql.DataSource;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.LeaseCeilingReachedEvent;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRenewedEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A new user's application: every Leasekeeper property at its default, token login, one
 * {@code database/creds/orders} lease feeding {@code spring.datasource}, a role of 6 s
 * TTL and 18 s max TTL, real HTTP to the simulator and a real PostgreSQL. The lease is
 * renewed, reaches its ceiling and is rotated, twice, while two threads query with no
 * failed query.
 */
class ShortTtlWithDefaultsIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.databaseRole("orders", Duration.ofSeconds(6), Duration.ofSeconds(18),
				"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{name}}")
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class,
				LeasekeeperDataSourceAutoConfiguration.class, DataSourceAutoConfiguration.class))
		.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class)
		.withPropertyValues(vault.propertyValues())
		.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders",
				"leasekeeper.leases.orders-db.datasource=true");

	@BeforeAll
	static void createTable() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS orders (id serial primary key, item text)");
			statement.execute("INSERT INTO orders (item) VALUES ('book')");
		}
	}

	@Test
	void aSixSecondRoleWithDefaultsIsRenewedAndRotatedAtEachCeilingWithNoFailedQuery() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			LeasekeeperAutoConfigurationTests.Events events = context
				.getBean(LeasekeeperAutoConfigurationTests.Events.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			FaultMatrixTests.Workload workload = new FaultMatrixTests.Workload(context.getBean(DataSource.class),
					events);
			workload.start();
			String firstUser = (String) renewer.current().data().get("username");
			// 18 s per generation at most: the second rotation within a minute
			// the events follow each swap on the scheduling thread
			await().atMost(Duration.ofSeconds(60))
				.until(() -> renewer.current().generation() >= 3 && events.of(LeaseRotatedEvent.class).size() >= 2);
			workload.stop();
			assertThat(workload.failures()).as("failed queries").isEmpty();
			assertThat(workload.queries.get()).isGreaterThan(100);
			assertThat(renewer.current().data().get("username")).isNotEqualTo(firstUser);
			assertThat(events.of(LeaseRenewedEvent.class)).hasSizeGreaterThanOrEqualTo(4);
			assertThat(events.of(LeaseCeilingReachedEvent.class)).hasSizeGreaterThanOrEqualTo(2);
			assertThat(events.of(LeaseRotatedEvent.class)).hasSizeGreaterThanOrEqualTo(2)
				.allSatisfy((rotated) -> assertThat(rotated.getCause()).isEqualTo(RotationCause.CEILING));
			assertThat(events.of(LeaseLostEvent.class)).isEmpty();
		});
	}

}
