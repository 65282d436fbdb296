package dev.leasekeeper.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.autoconfigure.LeasekeeperAutoConfiguration;
import dev.leasekeeper.autoconfigure.LeasekeeperDataSourceAutoConfiguration;
import dev.leasekeeper.autoconfigure.LeasekeeperExit;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The pool refresher on a real PostgreSQL that enforces passwords, with the simulator's
 * database engine.
 */
class PoolRefresherIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1),
				"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO {{name}}; "
						+ "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {{name}}")
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class,
				LeasekeeperDataSourceAutoConfiguration.class, DataSourceAutoConfiguration.class))
		.withUserConfiguration(Meters.class)
		.withPropertyValues(vault.propertyValues())
		.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders",
				"leasekeeper.leases.orders-db.datasource=true", "spring.datasource.hikari.maximum-pool-size=10",
				"spring.datasource.hikari.pool-name=orders");

	@BeforeAll
	static void createTable() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE orders (id serial primary key, item text)");
			statement.execute("INSERT INTO orders (item) VALUES ('book')");
		}
	}

	@Test
	void eightThreadsQueryAcrossTwentyRotationsWithoutAFailedQuery() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(DataSource.class);
			DataSource dataSource = context.getBean(DataSource.class);
			assertThat(dataSource).isInstanceOf(LeasedDataSource.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicLong queries = new AtomicLong();
			List<Throwable> failures = new ArrayList<>();
			Set<String> users = ConcurrentHashMap.newKeySet();
			List<Thread> workers = queryThreads(dataSource, "SELECT current_user, count(*) FROM orders", running,
					(user) -> {
						users.add(user);
						queries.incrementAndGet();
					}, (ex) -> {
						synchronized (failures) {
							failures.add(ex);
						}
					});
			String firstUser = (String) renewer.current().data().get("username");
			String firstPassword = (String) renewer.current().data().get("password");
			for (int rotation = 1; rotation <= 20; rotation++) {
				int generation = rotation + 1;
				renewer.rotateNow();
				await().atMost(Duration.ofSeconds(15)).until(() -> renewer.current().generation() == generation);
				long before = queries.get();
				await().atMost(Duration.ofSeconds(10)).until(() -> queries.get() > before + 40);
			}
			running.set(false);
			for (Thread worker : workers) {
				worker.join(10_000);
			}
			assertThat(failures).as("failed queries").isEmpty();
			assertThat(queries.get()).isGreaterThan(800);
			assertThat(users).hasSizeGreaterThanOrEqualTo(21);
			// the first credential is gone: drained, revoked, dropped
			await().atMost(Duration.ofSeconds(10)).until(() -> !vault.databaseRoleExists(firstUser));
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> DriverManager.getConnection(vault.jdbcUrl(), firstUser, firstPassword).close());
			System.out.println(
					"Pool refresher load: 20 rotations, " + queries.get() + " queries, " + failures.size() + " failed");
		});
	}

	@Test
	void underLoadTheNewPoolHasTheServingPoolsConnectionsOpenBeforeItServesAQuery() {
		this.runner.run((context) -> {
			DataSource dataSource = context.getBean(DataSource.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			AtomicBoolean running = new AtomicBoolean(true);
			Map<String, java.time.Instant> firstAnswered = new ConcurrentHashMap<>();
			// each query holds its connection a little, so that the pool keeps ten open
			List<Thread> workers = queryThreads(dataSource, "SELECT current_user, pg_sleep(0.002)", running,
					(user) -> firstAnswered.putIfAbsent(user, java.time.Instant.now()), (ex) -> {
						// counted by the other tests; here only the log-ins matter
					});
			// the serving pool under load: its ten connections open
			await().atMost(Duration.ofSeconds(10))
				.until(() -> backendsOf((String) renewer.current().data().get("username")).size() == 10);
			renewer.rotateNow();
			await().atMost(Duration.ofSeconds(10)).until(() -> renewer.current().generation() == 2);
			String newUser = (String) renewer.current().data().get("username");
			await().atMost(Duration.ofSeconds(10)).until(() -> firstAnswered.containsKey(newUser));
			running.set(false);
			for (Thread worker : workers) {
				worker.join(10_000);
			}
			// each connection the queries moved to was open before the first of them was
			// answered on the new credential: no query waited for a log-in
			java.time.Instant firstQuery = firstAnswered.get(newUser);
			assertThat(backendsOf(newUser)).filteredOn((started) -> started.isBefore(firstQuery))
				.hasSizeGreaterThanOrEqualTo(10);
		});
	}

	@Test
	void anOfferInterruptedWhileTheNewPoolOpensItsConnectionsNeverServesAndItsPoolIsClosed() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE ROLE slow_orders LOGIN PASSWORD 'slow-orders-password'");
			statement.execute("GRANT SELECT ON orders TO slow_orders");
		}
		// the new credential's first connection opens at once, each later one takes
		// 5 s: the refresher's warm-up waits for them when the engine gives up on it
		this.runner
			.withPropertyValues("spring.datasource.hikari.connection-init-sql=SELECT pg_sleep(CASE WHEN current_user"
					+ " = 'slow_orders' AND (SELECT count(*) FROM pg_stat_activity WHERE usename = current_user) > 1"
					+ " THEN 5 ELSE 0 END)")
			.run((context) -> {
				PoolRefresher refresher = context.getBean(PoolRefresher.class);
				LeasedDataSource dataSource = context.getBean(LeasedDataSource.class);
				LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				LeaseSnapshot current = renewer.current();
				String servingUser = (String) current.data().get("username");
				await().atMost(Duration.ofSeconds(10)).until(() -> backendsOf(servingUser).size() == 10);
				Object servingPool = dataSource.getPool();
				LeaseSnapshot candidate = new LeaseSnapshot(current.name(), current.generation() + 1,
						"database/creds/orders/slow", LeaseState.ACTIVE, current.obtainedAt(), current.ttl(),
						current.expiry(), current.validUntil(), null,
						Map.of("username", "slow_orders", "password", "slow-orders-password"));
				AtomicReference<Throwable> outcome = new AtomicReference<>();
				CountDownLatch returned = new CountDownLatch(1);
				// as a worker runs the offer, interrupted as the engine does when the
				// grant
				// it replaces runs out
				Thread worker = new Thread(() -> {
					try {
						refresher.accept(candidate, current);
					}
					catch (Throwable ex) {
						outcome.set(ex);
					}
					returned.countDown();
				}, "offer");
				worker.start();
				// the new pool validated its first connection, and the warm-up waits for
				// the
				// next one
				await().atMost(Duration.ofSeconds(10))
					.until(() -> backendsOf("slow_orders").size() >= 2
							&& worker.getState() == Thread.State.TIMED_WAITING
							&& java.util.Arrays.stream(worker.getStackTrace())
								.anyMatch((frame) -> frame.getMethodName().equals("warm")));
				worker.interrupt();
				assertThat(returned.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
				assertThat(outcome.get()).isInstanceOf(IllegalStateException.class)
					.hasMessageContaining("interrupted while its pool opened its connections")
					.hasMessageNotContaining("slow-orders-password");
				assertThat(dataSource.getPool()).isSameAs(servingPool);
				try (Connection connection = dataSource.getConnection();
						ResultSet result = connection.createStatement().executeQuery("SELECT current_user")) {
					result.next();
					assertThat(result.getString(1)).isEqualTo(servingUser);
				}
				// the new pool was closed: none of its connections stays once its log-ins
				// end
				await().atMost(Duration.ofSeconds(15)).until(() -> backendsOf("slow_orders").isEmpty());
			});
	}

	/**
	 * Start eight threads that run {@code sql} (its first column the current user) until
	 * {@code running} is false, telling each answer's user or each failure.
	 */
	private static List<Thread> queryThreads(DataSource dataSource, String sql, AtomicBoolean running,
			java.util.function.Consumer<String> answered, java.util.function.Consumer<Throwable> failed) {
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			Thread worker = new Thread(() -> {
				while (running.get()) {
					try (Connection connection = dataSource.getConnection();
							ResultSet result = connection.createStatement().executeQuery(sql)) {
						result.next();
						answered.accept(result.getString(1));
					}
					catch (Throwable ex) {
						failed.accept(ex);
					}
				}
			}, "query-" + i);
			worker.start();
			workers.add(worker);
		}
		return workers;
	}

	private static List<java.time.Instant> backendsOf(String user) throws SQLException {
		List<java.time.Instant> started = new ArrayList<>();
		try (Connection admin = vault.adminDataSource().getConnection();
				java.sql.PreparedStatement statement = admin
					.prepareStatement("SELECT backend_start FROM pg_stat_activity WHERE usename = ?")) {
			statement.setString(1, user);
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					started.add(result.getTimestamp(1).toInstant());
				}
			}
		}
		return started;
	}

	@Test
	void aTransactionOpenOnTheOldPoolCompletesBeforeThatPoolCloses() {
		this.runner.run((context) -> {
			DataSource dataSource = context.getBean(DataSource.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			String oldUser = (String) renewer.current().data().get("username");
			try (Connection connection = dataSource.getConnection()) {
				connection.setAutoCommit(false);
				connection.createStatement().execute("INSERT INTO orders (item) VALUES ('pen')");
				renewer.rotateNow();
				await().atMost(Duration.ofSeconds(10)).until(() -> renewer.current().generation() == 2);
				// the old pool waits for this connection: its role still exists
				assertThat(vault.databaseRoleExists(oldUser)).isTrue();
				try (ResultSet result = connection.createStatement()
					.executeQuery("SELECT current_user, count(*) FROM orders WHERE item = 'pen'")) {
					result.next();
					assertThat(result.getString(1)).isEqualTo(oldUser);
				}
				connection.commit();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> !vault.databaseRoleExists(oldUser));
		});
	}

	@Test
	void onShutdownTransactionsOpenOnTheServingPoolAndOnAPoolStillDrainingCommitBeforeThePoolsClose() throws Exception {
		CountDownLatch closing = new CountDownLatch(1);
		List<String> committed = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
		Thread[] finisher = new Thread[1];
		this.runner.withBean("closing", org.springframework.context.ApplicationListener.class,
				() -> (org.springframework.context.ApplicationListener<org.springframework.context.event.ContextClosedEvent>) (
						event) -> closing.countDown())
			.run((context) -> {
				DataSource dataSource = context.getBean(DataSource.class);
				LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				Connection old = dataSource.getConnection();
				old.setAutoCommit(false);
				old.createStatement().execute("INSERT INTO orders (item) VALUES ('slate')");
				renewer.rotateNow();
				await().atMost(Duration.ofSeconds(10)).until(() -> renewer.current().generation() == 2);
				Connection serving = dataSource.getConnection();
				serving.setAutoCommit(false);
				serving.createStatement().execute("INSERT INTO orders (item) VALUES ('chalk')");
				// both transactions take another second once the shutdown has begun
				finisher[0] = new Thread(() -> {
					try {
						closing.await();
						java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
						for (Connection connection : List.of(old, serving)) {
							connection.commit();
							connection.close();
							committed.add("committed");
						}
					}
					catch (Throwable ex) {
						failures.add(ex);
					}
				});
				finisher[0].start();
			});
		finisher[0].join(Duration.ofSeconds(30).toMillis());
		assertThat(failures).isEmpty();
		assertThat(committed).hasSize(2);
		try (Connection admin = vault.adminDataSource().getConnection();
				ResultSet result = admin.createStatement()
					.executeQuery("SELECT count(*) FROM orders WHERE item IN ('slate', 'chalk')")) {
			result.next();
			assertThat(result.getInt(1)).isEqualTo(2);
		}
	}

	@Test
	void aDrainingPoolHoldsNoThreadSoTheLeasesKeepRenewingMeanwhile() {
		this.runner.withPropertyValues("leasekeeper.io.threads=1").run((context) -> {
			DataSource dataSource = context.getBean(DataSource.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			String oldUser = (String) renewer.current().data().get("username");
			try (Connection connection = dataSource.getConnection()) {
				connection.setAutoCommit(false);
				connection.createStatement().execute("INSERT INTO orders (item) VALUES ('ink')");
				renewer.rotateNow();
				await().atMost(Duration.ofSeconds(10)).until(() -> renewer.current().generation() == 2);
				// the old pool waits for this transaction; the only I/O thread is
				// free for a renewal
				java.time.Instant expiry = renewer.current().expiry();
				renewer.renewNow();
				await().atMost(Duration.ofSeconds(10)).until(() -> renewer.current().expiry().isAfter(expiry));
				assertThat(vault.databaseRoleExists(oldUser)).isTrue();
				connection.commit();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> !vault.databaseRoleExists(oldUser));
		});
	}

	@Test
	void aCredentialThatCannotLogInIsRejectedAndTheCurrentPoolKeepsServing() throws Exception {
		this.runner.run((context) -> {
			PoolRefresher refresher = context.getBean(PoolRefresher.class);
			LeasedDataSource dataSource = context.getBean(LeasedDataSource.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			LeaseSnapshot current = renewer.current();
			Object servingPool = dataSource.getPool();
			LeaseSnapshot bad = new LeaseSnapshot(current.name(), current.generation() + 1, "database/creds/orders/bad",
					LeaseState.ACTIVE, current.obtainedAt(), current.ttl(), current.expiry(), current.validUntil(),
					null, Map.of("username", current.data().get("username"), "password", "not-the-password"));
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> refresher.accept(bad, current))
				.withMessageContaining("'orders-db'")
				.withMessageContaining("cannot log in")
				.withMessageNotContaining("not-the-password");
			assertThat(refresher.getRejections()).isEqualTo(1);
			assertThat(dataSource.getPool()).isSameAs(servingPool);
			try (Connection connection = dataSource.getConnection()) {
				assertThat(connection.isValid(2)).isTrue();
			}
		});
	}

	@Test
	void aSecretWithoutUsernameOrPasswordIsRejectedAndTheCurrentPoolKeepsServing() throws Exception {
		this.runner.run((context) -> {
			PoolRefresher refresher = context.getBean(PoolRefresher.class);
			LeasedDataSource dataSource = context.getBean(LeasedDataSource.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			LeaseSnapshot current = renewer.current();
			Object servingPool = dataSource.getPool();
			for (String missing : List.of("username", "password")) {
				Map<String, Object> data = new java.util.HashMap<>(current.data());
				data.remove(missing);
				LeaseSnapshot bad = new LeaseSnapshot(current.name(), current.generation() + 1,
						"database/creds/orders/bad", LeaseState.ACTIVE, current.obtainedAt(), current.ttl(),
						current.expiry(), current.validUntil(), null, data);
				assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> refresher.accept(bad, current))
					.withMessageContaining("'orders-db'")
					.withMessageContaining("no '" + missing + "' field")
					.withMessageNotContaining((String) current.data().get("password"));
			}
			assertThat(dataSource.getPool()).isSameAs(servingPool);
			try (Connection connection = dataSource.getConnection()) {
				assertThat(connection.isValid(2)).isTrue();
			}
		});
	}

	@Test
	void whenTheLeaseIsLostGetConnectionFailsAtOnceNamingIt() {
		this.runner.withPropertyValues("leasekeeper.leases.orders-db.on-lost=exit")
			.withBean(LeasekeeperExit.class, () -> (code) -> {
			})
			.run((context) -> {
				DataSource dataSource = context.getBean(DataSource.class);
				LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				vault.simulator().revokeLease(renewer.current().leaseId());
				renewer.renewNow();
				await().atMost(Duration.ofSeconds(5)).until(() -> renewer.current().state() == LeaseState.LOST);
				AtomicReference<SQLException> failure = new AtomicReference<>();
				await().atMost(Duration.ofSeconds(2)).until(() -> {
					try (Connection connection = dataSource.getConnection()) {
						return false;
					}
					catch (SQLException ex) {
						failure.set(ex);
						return true;
					}
				});
				assertThat((Throwable) failure.get()).hasMessageContaining("'orders-db'").hasMessageContaining("LOST");
			});
	}

	@Test
	void afterASwapThePoolMetersDescribeTheNewPoolOnly() {
		this.runner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			assertThat(poolsOf(meters)).containsExactly("orders-1");
			renewer.rotateNow();
			await().atMost(Duration.ofSeconds(10)).until(() -> renewer.current().generation() == 2);
			// the old pool's meters go when it closes, after its drain; HikariCP's close
			// itself may wait up to 10 s for its connections to close on a loaded machine
			await().atMost(Duration.ofSeconds(30)).until(() -> poolsOf(meters).equals(Set.of("orders-2")));
			assertThat(meters.get("leasekeeper.pool.swap.duration").tag("lease", "orders-db").timer().count())
				.isEqualTo(2);
		});
	}

	private static Set<String> poolsOf(MeterRegistry meters) {
		Set<String> pools = new java.util.TreeSet<>();
		meters.find("hikaricp.connections").gauges().forEach((gauge) -> pools.add(gauge.getId().getTag("pool")));
		return pools;
	}

	@Test
	void aServiceConnectionNamesTheDatabaseAndTheLeaseTheCredential() {
		this.runner.withPropertyValues("spring.datasource.url=jdbc:postgresql://127.0.0.1:1/nowhere")
			.withBean(JdbcConnectionDetails.class, () -> new JdbcConnectionDetails() {

				@Override
				public String getUsername() {
					return "ignored";
				}

				@Override
				public String getPassword() {
					return "ignored";
				}

				@Override
				public String getJdbcUrl() {
					return vault.jdbcUrl();
				}

			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				try (Connection connection = context.getBean(DataSource.class).getConnection();
						ResultSet result = connection.createStatement().executeQuery("SELECT current_user")) {
					result.next();
					assertThat(result.getString(1)).isEqualTo(renewer.current().data().get("username"));
				}
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Meters {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
