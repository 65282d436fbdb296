package dev.leasekeeper.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.autoconfigure.LeasekeeperAutoConfiguration;
import dev.leasekeeper.autoconfigure.LeasekeeperDataSourceAutoConfiguration;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database static role feeding spring.datasource, against a real PostgreSQL: Vault
 * rotates the user's password every 10 s ({@code ALTER ROLE ... PASSWORD}); Leasekeeper
 * reads the new one after each rotation and hands it to the same pool for its new
 * connections — no rebuild, the same user, {@code LeaseRotatedEvent} with
 * {@code STATIC_ROTATION} — while 8 threads query for a minute with no failed query. A
 * login refused with the old password makes it read at once.
 */
class StaticRoleIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.staticRole("billing", "billing_app", Duration.ofSeconds(10),
				"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO {{name}}; "
						+ "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {{name}}")
		.build();

	@BeforeAll
	static void createTable() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS invoices (id serial primary key, amount int)");
			statement.execute("GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO billing_app");
			statement.execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO billing_app");
		}
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class,
				LeasekeeperDataSourceAutoConfiguration.class, DataSourceAutoConfiguration.class))
		.withUserConfiguration(Events.class)
		.withPropertyValues(vault.propertyValues())
		.withPropertyValues("leasekeeper.leases.billing-db.path=database/static-creds/billing",
				"leasekeeper.leases.billing-db.datasource=true", "spring.datasource.hikari.maximum-pool-size=10",
				"spring.datasource.hikari.pool-name=billing", "spring.datasource.hikari.max-lifetime=30000");

	@Test
	void rotationsEveryTenSecondsForAMinuteUnderEightQueryingThreadsFailNoQuery() throws Exception {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			DataSource dataSource = context.getBean(DataSource.class);
			LeaseRenewer billing = context.getBean("billingDbLeaseRenewer", LeaseRenewer.class);
			assertThat(billing.current().data()).containsEntry("username", "billing_app");
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicLong queries = new AtomicLong();
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			List<String> pools = new CopyOnWriteArrayList<>();
			List<Thread> threads = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				Thread thread = new Thread(() -> {
					while (running.get()) {
						try (Connection connection = dataSource.getConnection();
								Statement statement = connection.createStatement()) {
							statement.execute("INSERT INTO invoices (amount) VALUES (1)");
							try (ResultSet result = statement.executeQuery("SELECT current_user")) {
								result.next();
								if (!"billing_app".equals(result.getString(1))) {
									failures.add(new AssertionError("queried as " + result.getString(1)));
								}
							}
							queries.incrementAndGet();
						}
						catch (Throwable ex) {
							failures.add(ex);
						}
					}
				}, "query-" + i);
				thread.start();
				threads.add(thread);
			}
			Instant end = Instant.now().plus(Duration.ofMinutes(1));
			while (Instant.now().isBefore(end)) {
				pools.add(((LeasedDataSource) dataSource).currentPool().getPoolName());
				Thread.sleep(500);
			}
			running.set(false);
			for (Thread thread : threads) {
				thread.join(10_000);
			}
			assertThat(failures).as("failed queries out of %d", queries.get()).isEmpty();
			assertThat(queries.get()).isGreaterThan(1000);
			Events events = context.getBean(Events.class);
			assertThat(events.rotated).as("rotations seen")
				.hasSizeGreaterThanOrEqualTo(4)
				.allSatisfy((event) -> assertThat(event.getCause()).isEqualTo(RotationCause.STATIC_ROTATION));
			assertThat(events.lost).isEmpty();
			// the same pool throughout: a new password, no rebuild
			assertThat(pools).containsOnly(pools.get(0));
			// the password served is the one Vault holds now (or the one before its
			// rotation still being read)
			assertThat(billing.current().generation()).isGreaterThanOrEqualTo(5);
			assertThat(new dev.leasekeeper.actuate.LeasesEndpoint(java.util.Map.of("billing-db", billing),
					new dev.leasekeeper.actuate.LeaseActivity(Instant::now))
				.lease("billing-db")
				.kind()).isEqualTo("static");
		});
	}

	@Test
	void aLoginRefusedWithTheOldPasswordReadsTheNewOneAtOnce() throws Exception {
		this.runner
			.withPropertyValues("spring.datasource.hikari.minimum-idle=0",
					"spring.datasource.hikari.idle-timeout=10000", "leasekeeper.leases.billing-db.refresh-spread=0s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeaseRenewer billing = context.getBean("billingDbLeaseRenewer", LeaseRenewer.class);
				int generation = billing.current().generation();
				// rotated out of schedule: the pool does not know yet
				vault.simulator().rotateStaticRole("billing");
				LeasedDataSource dataSource = (LeasedDataSource) context.getBean(DataSource.class);
				dataSource.currentPool().getHikariPoolMXBean().softEvictConnections();
				try (Connection connection = dataSource.getConnection()) {
					// a connection that was open may still serve
				}
				catch (java.sql.SQLException ex) {
					assertThat(ex.getSQLState()).startsWith("28");
				}
				org.awaitility.Awaitility.await()
					.atMost(Duration.ofSeconds(5))
					.until(() -> billing.current().generation() > generation);
				try (Connection connection = dataSource.getConnection()) {
					assertThat(connection.isValid(1)).isTrue();
				}
			});
	}

	static class Events {

		final List<LeaseRotatedEvent> rotated = new CopyOnWriteArrayList<>();

		final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LeaseRotatedEvent event) {
			this.rotated.add(event);
		}

		@EventListener
		void on(LeaseLostEvent event) {
			this.lost.add(event);
		}

	}

}
