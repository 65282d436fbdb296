package dev.leasekeeper.autoconfigure;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.fleet.GroupMember;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulator;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ScriptUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Fleet scope with five application instances (five Spring contexts) against one Vault
 * simulator and one PostgreSQL, whose INT_LOCK table holds the election's lock: one
 * leader keeps the group's grant under the group token and publishes it through KV with
 * check-and-set; every instance's pool uses it. The journal shows one renewal stream
 * instead of five, one live lease and one database user; a leader killed just before its
 * renewal (its lock's connection and its Vault token cut, no graceful stop) is replaced
 * by a follower that renews before the grant's validity ends, with the takeover attempts
 * spread and no failed query on any instance; a stale leader's publication is refused by
 * check-and-set and it steps down.
 */
class FleetIntegrationTests {

	static final Duration TTL = Duration.ofSeconds(36);

	static final String KEY = "leasekeeper/orders/orders-db";

	static final String STALE_KEY = "leasekeeper/orders-stale/orders-db";

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.databaseRole("orders", TTL, Duration.ofHours(1),
				"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO {{name}}; "
						+ "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {{name}}")
		.databaseRole("short", Duration.ofSeconds(6), Duration.ofHours(1),
				"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO {{name}}; "
						+ "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {{name}}")
		.staticRole("locks", "lock_user", Duration.ofSeconds(5), "GRANT CONNECT ON DATABASE postgres TO {{name}}")
		.configure((builder) -> builder.tokenRole("orders-group", true, Duration.ofMinutes(2), "fleet-grant")
			.policy("fleet-grant",
					"path \"database/creds/orders\" { capabilities = [\"read\"] }\n"
							+ "path \"database/creds/short\" { capabilities = [\"read\"] }\n"
							+ "path \"sys/leases/revoke\" { capabilities = [\"update\"] }")
			.policy("fleet-member", """
					path "secret/data/leasekeeper/*" { capabilities = ["create", "read", "update"] }
					path "secret/metadata/leasekeeper/*" { capabilities = ["create", "read", "update"] }
					path "auth/token/create/orders-group" { capabilities = ["update"] }
					"""))
		.build();

	private final List<Instance> instances = new ArrayList<>();

	@BeforeAll
	static void createTables() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS orders (id serial primary key, amount int)");
			ScriptUtils.executeSqlScript(admin,
					new ClassPathResource("org/springframework/integration/jdbc/schema-postgresql.sql"));
			// the lock's own role: INT_LOCK and nothing else
			statement.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON int_lock TO lock_user");
		}
	}

	@AfterEach
	void stopInstances() {
		for (Instance instance : this.instances) {
			instance.close();
		}
		// the group's grant outlives its instances: end it for the next test
		liveLeases().forEach(vault.simulator()::revokeLease);
		vault.simulator().liveLeases("database/creds/short/").forEach(vault.simulator()::revokeLease);
	}

	@Test
	void fiveInstancesShareOneGrantAndAKilledLeaderIsReplacedBeforeTheGrantEnds() throws Exception {
		Instant start = Instant.now();
		for (int i = 0; i < 5; i++) {
			this.instances.add(Instance.start(i, "orders"));
		}
		String leaseId = published().get("lease_id").toString();
		for (Instance instance : this.instances) {
			assertThat(instance.orders().current().leaseId()).isEqualTo(leaseId);
		}
		this.instances.forEach(Instance::query);
		// two renewal periods of the shared grant
		Instant watched = Instant.now();
		await().atMost(TTL.multipliedBy(3)).until(() -> renewals(leaseId, watched).size() >= 2);
		List<JournalEntry> renewals = renewals(leaseId, watched);
		assertThat(renewals).extracting(JournalEntry::status).containsOnly(200);
		// one stream: every renewal made with the one group token, none twice in a period
		assertThat(renewals).extracting(JournalEntry::accessor)
			.hasSize(renewals.size())
			.containsOnly(renewals.get(0).accessor());
		assertThat(gaps(renewals)).allSatisfy((gap) -> assertThat(gap).isGreaterThan(TTL.dividedBy(10)));
		assertThat(liveLeases()).containsExactly(leaseId);
		assertThat(databaseUsersOf(start)).hasSize(1);
		// the group token is nobody's child: no instance's stop can kill the grant
		assertThat(vault.simulator().isTokenAlive(renewals.get(0).accessor())).isTrue();
		// followers read, once per period: never renew or acquire
		Map<String, Long> reads = new LinkedHashMap<>();
		for (JournalEntry entry : vault.simulator().journal((entry) -> !entry.at().isBefore(watched))) {
			if (entry.path().equals("secret/data/" + KEY) && entry.method().equals("GET")) {
				reads.merge(String.valueOf(entry.accessor()), 1L, Long::sum);
			}
		}
		assertThat(reads).hasSize(5);
		// at most one read per follower and renewal period, plus the first
		assertThat(reads.values()).allSatisfy((count) -> assertThat(count).isLessThanOrEqualTo(renewals.size() + 2));

		// the leader dies just before its renewal point
		Instance leader = leader();
		Instant refreshAt = Instant.parse(published().get("refresh_time").toString());
		pauseUntil(refreshAt.minusSeconds(1));
		long generation = ((Number) published().get("generation")).longValue();
		Instant killedAt = Instant.now();
		leader.kill();
		Instant expiry = Instant.parse(published().get("expire_time").toString());
		await().atMost(Duration.between(Instant.now(), expiry))
			.until(() -> Instant.parse(published().get("expire_time").toString()).isAfter(expiry));
		Instant renewedAt = Instant.now();
		assertThat(renewedAt).isBefore(expiry);
		Instance next = leader();
		assertThat(next).isNotSameAs(leader);
		assertThat(published()).containsEntry("lease_id", leaseId);
		assertThat(((Number) published().get("generation")).longValue()).isEqualTo(generation);
		// each follower that saw the leader late drew a deadline of its own:
		// how many saw it depends on who read before the takeover (the spread
		// is GroupMemberTests'), and only the first tried the lock
		List<Instant> drawn = new ArrayList<>();
		int attempts = 0;
		for (Instance instance : this.instances) {
			if (instance == leader) {
				continue;
			}
			Instant deadline = instance.member().lastDeadlineAt();
			if (deadline != null && deadline.isAfter(killedAt)) {
				drawn.add(deadline);
			}
			Instant attempt = instance.member().lastAttemptAt();
			attempts += (attempt != null && attempt.isAfter(killedAt)) ? 1 : 0;
		}
		TreeSet<Instant> deadlines = new TreeSet<>(drawn);
		assertThat(deadlines).isNotEmpty().hasSameSizeAs(drawn);
		assertThat(attempts).isBetween(1, deadlines.size());
		Thread.sleep(2000);
		for (Instance instance : this.instances) {
			if (instance != leader) {
				assertThat(instance.failures).as("failed queries of %s", instance.name).isEmpty();
				assertThat(instance.queries.get()).isGreaterThan(50);
				assertThat(instance.events.lost).isEmpty();
			}
		}
		assertThat(liveLeases()).containsExactly(leaseId);
		// a follower that stops gracefully revokes nothing of the group's
		Instance follower = this.instances.stream()
			.filter((instance) -> instance != leader && instance != next)
			.findFirst()
			.orElseThrow();
		follower.close();
		assertThat(liveLeases()).containsExactly(leaseId);
		assertThat(vault.simulator().journal((entry) -> entry.path().equals("sys/leases/revoke"))).isEmpty();
		System.out.println("Fleet: 5 instances, " + renewals.size() + " renewals of the shared grant in "
				+ Duration.between(watched, renewals.get(renewals.size() - 1).at()).toSeconds() + " s; leader killed "
				+ Duration.between(killedAt, expiry).toMillis() + " ms before the grant's expiry, renewed by the next "
				+ Duration.between(killedAt, renewedAt).toMillis() + " ms after; " + deadlines.size()
				+ " takeover deadlines drawn over " + Duration.between(deadlines.first(), deadlines.last()).toMillis()
				+ " ms, " + attempts + " of them tried the lock");
	}

	@Test
	void aSixSecondLeaseIsSharedWithEveryFleetDefault() throws Exception {
		// as a new user would: a short role and every fleet setting left at its default
		String[] defaults = { "leasekeeper.leases.orders-db.path=database/creds/short",
				"leasekeeper.fleet.read-spread=30s", "leasekeeper.fleet.failover-window=30s",
				"leasekeeper.fleet.lock.time-to-live=10s" };
		for (int i = 0; i < 2; i++) {
			this.instances.add(Instance.start(i, "orders-short", defaults));
		}
		this.instances.forEach(Instance::query);
		Instant start = Instant.now();
		Thread.sleep(20_000);
		String leaseId = published("leasekeeper/orders-short/orders-db").get("lease_id").toString();
		for (Instance instance : this.instances) {
			assertThat(instance.failures).as("failed queries of %s", instance.name).isEmpty();
			assertThat(instance.queries.get()).isGreaterThan(100);
			assertThat(instance.events.lost).isEmpty();
			assertThat(instance.orders().current().leaseId()).isEqualTo(leaseId);
		}
		// a renewal every 4 s or so, all of them the leader's
		assertThat(renewals(leaseId, start)).hasSizeGreaterThanOrEqualTo(3)
			.extracting(JournalEntry::status)
			.containsOnly(200);
		assertThat(vault.simulator().liveLeases("database/creds/short/")).containsExactly(leaseId);
	}

	@Test
	void aStaleLeadersPublicationIsRefusedAndItStepsDown() throws Exception {
		// Boot's logging system would replace the capture
		System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
		try (CapturedLogs logs = new CapturedLogs()) {
			for (int i = 0; i < 2; i++) {
				this.instances.add(Instance.start(i, "orders-stale"));
			}
			Instance leader = leader();
			Map<String, Object> current = published(STALE_KEY);
			int version = vault.simulator().kvVersion(STALE_KEY);
			// another leader (as far as this one knows) publishes meanwhile
			vault.simulator().kvWrite(STALE_KEY, current);
			Instant refreshAt = Instant.parse(current.get("refresh_time").toString());
			await().atMost(Duration.between(Instant.now(), refreshAt).plusSeconds(10))
				.until(() -> !leader.member().isLeader());
			// its write at the renewal was refused: the newer entry was never overwritten
			List<JournalEntry> writes = vault.simulator()
				.journal((entry) -> entry.path().equals("secret/data/" + STALE_KEY) && entry.method().equals("POST"));
			assertThat(writes).extracting(JournalEntry::status).contains(400);
			assertThat(vault.simulator().kvVersion(STALE_KEY)).isGreaterThanOrEqualTo(version + 1);
			assertThat(published(STALE_KEY)).containsEntry("lease_id", current.get("lease_id"));
			// no token, password or group token in any log line of a leader, a follower,
			// a publication or a step-down
			String text = logs.text();
			assertThat(text).contains("steps down").contains("published generation 1");
			Map<?, ?> data = (Map<?, ?>) current.get("data");
			assertThat(text).doesNotContain(current.get("token").toString())
				.doesNotContain(data.get("password").toString());
			for (Instance instance : this.instances) {
				assertThat(text).doesNotContain(instance.token);
			}
		}
		finally {
			System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
		}
	}

	@Test
	void withoutALockRegistryBeanTheElectionRunsOnItsOwnJdbcLock() throws Exception {
		String token = vault.simulator().createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member");
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(AppWithoutLocks.class)
			.web(WebApplicationType.NONE)
			.properties(groupProperties(token, "orders-jdbc", 9))
			.properties("leasekeeper.fleet.lock.url=" + vault.jdbcUrl(), "leasekeeper.fleet.lock.username=postgres",
					"leasekeeper.fleet.lock.password=postgres")
			.run()) {
			LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			assertThat(orders.current().leaseId())
				.isEqualTo(published("leasekeeper/orders-jdbc/orders-db").get("lease_id"));
			assertThat(context.getBean(LeasekeeperFleetAutoConfiguration.GroupLeases.class).members().get(0).isLeader())
				.isTrue();
			try (Connection admin = vault.adminDataSource().getConnection();
					Statement statement = admin.createStatement();
					ResultSet locks = statement
						.executeQuery("SELECT count(*) FROM INT_LOCK WHERE REGION = 'leasekeeper'")) {
				locks.next();
				assertThat(locks.getInt(1)).isEqualTo(1);
			}
		}
	}

	@Test
	void theLocksConnectionMayUseAStaticRoleThatOnlyReachesTheLockTable() throws Exception {
		String token = vault.simulator().createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member");
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(AppWithoutLocks.class)
			.web(WebApplicationType.NONE)
			.properties(groupProperties(token, "orders-locked", 11))
			.properties("leasekeeper.leases.lock-db.path=database/static-creds/locks",
					"leasekeeper.fleet.lock.url=" + vault.jdbcUrl(), "leasekeeper.fleet.lock.lease=lock-db")
			.run()) {
			assertThat(context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class).current().leaseId())
				.isEqualTo(published("leasekeeper/orders-locked/orders-db").get("lease_id"));
			GroupMember member = context.getBean(LeasekeeperFleetAutoConfiguration.GroupLeases.class).members().get(0);
			assertThat(member.isLeader()).isTrue();
			// Vault rotates the lock role's password: the lock's pool takes the new one
			// and the
			// leader keeps its lock through it
			LeaseRenewer lock = context.getBean("lockDbLeaseRenewer", LeaseRenewer.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> lock.current().generation() >= 2);
			// its connections are gone: new ones must log in with the new password
			try (Connection admin = vault.adminDataSource().getConnection();
					Statement statement = admin.createStatement()) {
				statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'lock_user'");
			}
			// a lock that cannot be renewed is given up within a heartbeat (0.6 s)
			Thread.sleep(2000);
			assertThat(member.isLeader()).isTrue();
			try (Connection admin = vault.adminDataSource().getConnection();
					Statement statement = admin.createStatement();
					ResultSet sessions = statement
						.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE usename = 'lock_user'")) {
				sessions.next();
				assertThat(sessions.getInt(1)).isGreaterThanOrEqualTo(1);
			}
		}
	}

	@Test
	void withoutALockRegistryOrALockUrlStartUpFailsNamingTheProperty() {
		String token = vault.simulator().createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member");
		assertThatThrownBy(() -> new SpringApplicationBuilder(AppWithoutLocks.class).web(WebApplicationType.NONE)
			.properties(groupProperties(token, "orders-nolock", 10))
			.run()).hasStackTraceContaining("leasekeeper.fleet.lock.url");
	}

	private static String[] groupProperties(String token, String group, int number) {
		return new String[] { "spring.application.name=" + group, "leasekeeper.vault.uri=" + vault.simulator().uri(),
				"leasekeeper.vault.token=" + token, "spring.datasource.url=" + vault.jdbcUrl(),
				"spring.datasource.hikari.maximum-pool-size=2", "spring.datasource.hikari.pool-name=instance-" + number,
				"leasekeeper.leases.orders-db.path=database/creds/orders",
				"leasekeeper.leases.orders-db.datasource=true", "leasekeeper.leases.orders-db.sharing=group",
				"leasekeeper.fleet.token-role=orders-group", "leasekeeper.fleet.read-spread=1s",
				"leasekeeper.fleet.failover-window=2s", "leasekeeper.fleet.lock.time-to-live=3s",
				"logging.level.dev.leasekeeper=WARN", "logging.level.dev.leasekeeper.fleet=INFO" };
	}

	private static Map<String, Object> published() {
		return published(KEY);
	}

	private static Map<String, Object> published(String key) {
		Map<String, Object> entry = vault.simulator().kvRead(key);
		assertThat(entry).as("published grant").isNotNull();
		return entry;
	}

	private Instance leader() {
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.instances.stream().filter((instance) -> instance.member().isLeader()).count() == 1);
		return this.instances.stream().filter((instance) -> instance.member().isLeader()).findFirst().orElseThrow();
	}

	private static List<JournalEntry> renewals(String leaseId, Instant since) {
		return vault.simulator()
			.journal((entry) -> entry.path().equals("sys/leases/renew") && leaseId.equals(entry.leaseId())
					&& !entry.at().isBefore(since));
	}

	private static List<Duration> gaps(List<JournalEntry> entries) {
		List<Duration> gaps = new ArrayList<>();
		for (int i = 1; i < entries.size(); i++) {
			gaps.add(Duration.between(entries.get(i - 1).at(), entries.get(i).at()));
		}
		return gaps;
	}

	private static List<String> liveLeases() {
		return vault.simulator().liveLeases("database/creds/orders/");
	}

	private static Set<String> databaseUsersOf(Instant since) throws SQLException {
		Set<String> users = new TreeSet<>();
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement();
				ResultSet result = statement
					.executeQuery("SELECT usename FROM pg_stat_activity WHERE usename LIKE 'v-%'")) {
			while (result.next()) {
				users.add(result.getString(1));
			}
		}
		return users;
	}

	private static void pauseUntil(Instant instant) throws InterruptedException {
		Duration wait = Duration.between(Instant.now(), instant);
		if (!wait.isNegative()) {
			Thread.sleep(wait.toMillis());
		}
	}

	/** One application instance: its context, its queries, and a way to kill it. */
	static final class Instance {

		final String name;

		final ConfigurableApplicationContext context;

		final String token;

		final Cuttable lockConnection;

		final AtomicBoolean running = new AtomicBoolean(true);

		final AtomicLong queries = new AtomicLong();

		final List<Throwable> failures = new CopyOnWriteArrayList<>();

		final FleetEvents events;

		private Thread worker;

		private Instance(String name, ConfigurableApplicationContext context, String token, Cuttable lockConnection) {
			this.name = name;
			this.context = context;
			this.token = token;
			this.lockConnection = lockConnection;
			this.events = context.getBean(FleetEvents.class);
		}

		static Instance start(int number, String group, String... more) {
			String token = vault.simulator().createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member");
			Cuttable lockConnection = new Cuttable(vault.adminDataSource());
			ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
				.web(WebApplicationType.NONE)
				.initializers((ctx) -> ctx.getBeanFactory()
					.registerSingleton("lockConnection", new LockConnection(lockConnection)))
				.properties(groupProperties(token, group, number))
				.properties(more)
				.run();
			return new Instance("instance-" + number, context, token, lockConnection);
		}

		LeaseRenewer orders() {
			return this.context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
		}

		GroupMember member() {
			return this.context.getBean(LeasekeeperFleetAutoConfiguration.GroupLeases.class).members().get(0);
		}

		void query() {
			DataSource dataSource = this.context.getBean(DataSource.class);
			this.worker = new Thread(() -> {
				while (this.running.get()) {
					try (Connection connection = dataSource.getConnection();
							Statement statement = connection.createStatement()) {
						statement.execute("INSERT INTO orders (amount) VALUES (1)");
						this.queries.incrementAndGet();
						Thread.sleep(50);
					}
					catch (InterruptedException ex) {
						return;
					}
					catch (Throwable ex) {
						if (this.running.get()) {
							this.failures.add(ex);
						}
					}
				}
			}, this.name + "-queries");
			this.worker.start();
		}

		/** No graceful stop: its lock's connection and its Vault token are cut. */
		void kill() {
			this.running.set(false);
			this.lockConnection.cut();
			vault.simulator().revokeToken(this.token);
		}

		void close() {
			this.running.set(false);
			if (this.worker != null) {
				this.worker.interrupt();
			}
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LeasekeeperAutoConfiguration.class, LeasekeeperDataSourceAutoConfiguration.class,
			DataSourceAutoConfiguration.class, LeasekeeperFleetAutoConfiguration.class })
	static class App {

		@Bean(destroyMethod = "close")
		DefaultLockRepository lockRepository(LockConnection lockConnection) {
			DefaultLockRepository repository = new DefaultLockRepository(lockConnection.dataSource());
			repository.setRegion("orders-fleet");
			repository.setTimeToLive(3000);
			repository.setTransactionManager(new DataSourceTransactionManager(lockConnection.dataSource()));
			return repository;
		}

		@Bean
		LockRegistry<?> lockRegistry(DefaultLockRepository lockRepository) {
			return new JdbcLockRegistry(lockRepository, Duration.ofSeconds(3));
		}

		@Bean
		FleetEvents fleetEvents() {
			return new FleetEvents();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LeasekeeperAutoConfiguration.class, LeasekeeperDataSourceAutoConfiguration.class,
			DataSourceAutoConfiguration.class, LeasekeeperFleetAutoConfiguration.class })
	static class AppWithoutLocks {

	}

	static class FleetEvents {

		final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();

		final List<RotationCause> rotations = new CopyOnWriteArrayList<>();

		@org.springframework.context.event.EventListener
		void on(LeaseLostEvent event) {
			this.lost.add(event);
		}

		@org.springframework.context.event.EventListener
		void on(LeaseRotatedEvent event) {
			this.rotations.add(event.getCause());
		}

	}

	/**
	 * The lock's connection of one instance (not a DataSource bean: the pool is Boot's).
	 */
	record LockConnection(Cuttable dataSource) {
	}

	/** A data source whose connections can be cut, as a killed process's are. */
	static final class Cuttable implements DataSource {

		private final DataSource target;

		private volatile boolean cut;

		Cuttable(DataSource target) {
			this.target = target;
		}

		void cut() {
			this.cut = true;
		}

		@Override
		public Connection getConnection() throws SQLException {
			if (this.cut) {
				throw new SQLException("the process is gone", "08006");
			}
			return this.target.getConnection();
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

		@Override
		public PrintWriter getLogWriter() throws SQLException {
			return this.target.getLogWriter();
		}

		@Override
		public void setLogWriter(PrintWriter out) throws SQLException {
			this.target.setLogWriter(out);
		}

		@Override
		public void setLoginTimeout(int seconds) throws SQLException {
			this.target.setLoginTimeout(seconds);
		}

		@Override
		public int getLoginTimeout() throws SQLException {
			return this.target.getLoginTimeout();
		}

		@Override
		public Logger getParentLogger() {
			return Logger.getGlobal();
		}

		@Override
		public <T> T unwrap(Class<T> type) throws SQLException {
			return this.target.unwrap(type);
		}

		@Override
		public boolean isWrapperFor(Class<?> type) throws SQLException {
			return this.target.isWrapperFor(type);
		}

	}

}
