package dev.leasekeeper.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.autoconfigure.LeasekeeperAutoConfiguration;
import dev.leasekeeper.autoconfigure.LeasekeeperDataSourceAutoConfiguration;
import dev.leasekeeper.autoconfigure.LeasekeeperNamedDataSourceAutoConfiguration;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two leases on two roles feed two pools the application defines itself, on two databases
 * of a real PostgreSQL: each pool takes its credential from its own lease and is rotated
 * on its own, with no failed query on either.
 */
class NamedDataSourcesIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1),
				"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{name}}")
		.databaseRole("reports", Duration.ofMinutes(10), Duration.ofHours(1), "SELECT 1")
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(LeasekeeperAutoConfiguration.class, LeasekeeperDataSourceAutoConfiguration.class,
						LeasekeeperNamedDataSourceAutoConfiguration.class, DataSourceAutoConfiguration.class))
		.withPropertyValues(vault.propertyValues())
		.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders",
				"leasekeeper.leases.orders-db.datasource=ordersDataSource",
				"leasekeeper.leases.reports-db.path=database/creds/reports",
				"leasekeeper.leases.reports-db.datasource=reportsDataSource");

	@BeforeAll
	static void createDatabases() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE orders (id int)");
			statement.execute("INSERT INTO orders VALUES (1)");
			statement.execute("CREATE DATABASE reports");
		}
		try (Connection reports = java.sql.DriverManager.getConnection(reportsUrl(), "postgres", "postgres");
				Statement statement = reports.createStatement()) {
			statement.execute("CREATE TABLE reports (id int)");
			statement.execute("INSERT INTO reports VALUES (1)");
			// the reports role's users are made in the postgres database: here every
			// role may read
			statement.execute("GRANT SELECT ON reports TO PUBLIC");
		}
	}

	static String reportsUrl() {
		return vault.jdbcUrl().replaceFirst("/postgres", "/reports");
	}

	@Test
	void twoLeasesFeedTwoPoolsOfTwoDatabasesRotatingAtDifferentTimesWithoutAFailedQuery() {
		this.runner.withUserConfiguration(TwoPools.class).run((context) -> {
			assertThat(context).hasNotFailed();
			DataSource orders = context.getBean("ordersDataSource", DataSource.class);
			DataSource reports = context.getBean("reportsDataSource", DataSource.class);
			assertThat(orders).isInstanceOfSatisfying(LeasedDataSource.class,
					(leased) -> assertThat(leased.getLeaseName()).isEqualTo("orders-db"));
			assertThat(reports).isInstanceOfSatisfying(LeasedDataSource.class,
					(leased) -> assertThat(leased.getLeaseName()).isEqualTo("reports-db"));
			LeaseRenewer ordersLease = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			LeaseRenewer reportsLease = context.getBean("reportsDbLeaseRenewer", LeaseRenewer.class);
			AtomicBoolean running = new AtomicBoolean(true);
			Map<String, AtomicLong> queries = Map.of("orders", new AtomicLong(), "reports", new AtomicLong());
			Map<String, Set<String>> users = Map.of("orders", ConcurrentHashMap.newKeySet(), "reports",
					ConcurrentHashMap.newKeySet());
			List<Throwable> failures = new ArrayList<>();
			List<Thread> workers = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				String table = (i % 2 == 0) ? "orders" : "reports";
				DataSource dataSource = (i % 2 == 0) ? orders : reports;
				Thread worker = new Thread(() -> {
					while (running.get()) {
						try (Connection connection = dataSource.getConnection();
								ResultSet result = connection.createStatement()
									.executeQuery("SELECT current_user, current_database(), count(*) FROM " + table)) {
							result.next();
							assertThat(result.getString(2)).isEqualTo(table.equals("orders") ? "postgres" : "reports");
							users.get(table).add(result.getString(1));
							queries.get(table).incrementAndGet();
						}
						catch (Throwable ex) {
							synchronized (failures) {
								failures.add(ex);
							}
						}
					}
				}, "query-" + i);
				worker.start();
				workers.add(worker);
			}
			for (int rotation = 1; rotation <= 3; rotation++) {
				rotate(ordersLease, rotation + 1, queries.get("orders"));
				rotate(reportsLease, rotation + 1, queries.get("reports"));
			}
			running.set(false);
			for (Thread worker : workers) {
				worker.join(10_000);
			}
			assertThat(failures).as("failed queries").isEmpty();
			// each pool saw the user of every generation of its own lease, and only those
			assertThat(users.get("orders")).hasSizeGreaterThanOrEqualTo(4);
			assertThat(users.get("reports")).hasSizeGreaterThanOrEqualTo(4);
			assertThat(users.get("orders")).doesNotContainAnyElementsOf(users.get("reports"));
		});
	}

	private static void rotate(LeaseRenewer lease, int generation, AtomicLong queries) {
		lease.rotateNow();
		await().atMost(Duration.ofSeconds(15)).until(() -> lease.current().generation() == generation);
		long before = queries.get();
		await().atMost(Duration.ofSeconds(10)).until(() -> queries.get() > before + 40);
	}

	@Test
	void eachNamedPoolReportsItsOwnMeters() {
		this.runner.withUserConfiguration(TwoPools.class, PoolRefresherIntegrationTests.Meters.class).run((context) -> {
			assertThat(context).hasNotFailed();
			io.micrometer.core.instrument.MeterRegistry meters = context
				.getBean(io.micrometer.core.instrument.MeterRegistry.class);
			Set<String> pools = new java.util.TreeSet<>();
			meters.find("hikaricp.connections").gauges().forEach((gauge) -> pools.add(gauge.getId().getTag("pool")));
			assertThat(pools).containsExactly("orders-1", "reports-1");
			assertThat(meters.find(dev.leasekeeper.metrics.LeaseMetrics.POOL_SWAP_DURATION).timers())
				.extracting((timer) -> timer.getId().getTag("lease"))
				.containsExactlyInAnyOrder("orders-db", "reports-db");
		});
	}

	@Test
	void aLeaseNamingNoBeanStopsStartUpNamingTheProperty() {
		this.runner.withUserConfiguration(OnePool.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(propertyFailure(context.getStartupFailure()))
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("leasekeeper.leases.reports-db.datasource")
				.hasMessageContaining("reportsDataSource");
		});
	}

	@Test
	void aLeaseNamingABeanThatIsNotAHikariPoolStopsStartUpNamingTheProperty() {
		this.runner.withUserConfiguration(TwoPools.class)
			.withBean("reportsDataSource", DataSource.class,
					() -> new org.springframework.jdbc.datasource.DriverManagerDataSource(reportsUrl()))
			.withAllowBeanDefinitionOverriding(true)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(propertyFailure(context.getStartupFailure()))
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining("leasekeeper.leases.reports-db.datasource")
					.hasMessageContaining("must name a HikariDataSource bean");
			});
	}

	@Test
	void datasourceTrueBesideTheApplicationsOwnPoolsIsWarnedAbout() {
		try (dev.leasekeeper.autoconfigure.CapturedLogs logs = new dev.leasekeeper.autoconfigure.CapturedLogs()) {
			warnAboutDatasourceTrue(logs);
		}
	}

	private void warnAboutDatasourceTrue(dev.leasekeeper.autoconfigure.CapturedLogs logs) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class,
					LeasekeeperDataSourceAutoConfiguration.class, LeasekeeperNamedDataSourceAutoConfiguration.class,
					DataSourceAutoConfiguration.class))
			.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders",
					"leasekeeper.leases.orders-db.datasource=true",
					"leasekeeper.leases.reports-db.path=database/creds/reports",
					"leasekeeper.leases.reports-db.datasource=reportsDataSource")
			.withBean("reportsDataSource", HikariDataSource.class, () -> pool(reportsUrl(), "reports"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(logs.text()).contains("Lease 'orders-db' has datasource: true, but the application defines"
						+ " its own DataSource beans");
			});
	}

	/** The property failure among a start-up failure's causes, or the failure itself. */
	private static Throwable propertyFailure(Throwable startupFailure) {
		Throwable failure = startupFailure;
		while (!(failure instanceof InvalidConfigurationPropertyValueException) && failure.getCause() != null) {
			failure = failure.getCause();
		}
		return failure;
	}

	@Configuration(proxyBeanMethods = false)
	static class OnePool {

		@Bean
		HikariDataSource ordersDataSource() {
			return pool(vault.jdbcUrl(), "orders");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoPools {

		@Bean
		HikariDataSource ordersDataSource() {
			return pool(vault.jdbcUrl(), "orders");
		}

		@Bean
		HikariDataSource reportsDataSource() {
			return pool(reportsUrl(), "reports");
		}

	}

	static HikariDataSource pool(String url, String name) {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl(url);
		pool.setMaximumPoolSize(5);
		pool.setPoolName(name);
		return pool;
	}

}
