package dev.leasekeeper.autoconfigure;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.LeaseCeilingReachedEvent;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRenewedEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.jdbc.LeasedDataSource;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.SimulatorClock;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fault matrix: every fault the testkit can inject, and a jump of the application's
 * wall clock, against a full Spring context with a pooled DataSource over real
 * PostgreSQL, the simulator over HTTP, and two threads querying throughout. Each test
 * asserts the expected outcome and records what it observed; {@code docs/RELIABILITY.md}
 * holds the table, and the last step checks it says what this run observed (run with
 * {@code -Dleasekeeper.reliability.update=true} to rewrite it).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultMatrixTests {

	/** Every lease lives 10 s and renews at half of it: 3.5 s of margin. */
	static final Duration TTL = Duration.ofSeconds(10);

	static final Duration MARGIN = Duration.ofMillis(3500);

	/** Shorter than the margin, with a second to spare for scheduling. */
	static final Duration FAULT = Duration.ofMillis(2500);

	private static final List<Row> rows = new CopyOnWriteArrayList<>();

	/** Vault's clock: follows real time; the suspend row, the last, jumps it. */
	static final SimulatorClock CLOCK = new SimulatorClock();

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.databaseRole("orders", TTL, Duration.ofHours(1), "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{name}}")
		.configure((builder) -> builder.clock(CLOCK)
			.appRole("app", "app-role", "app-secret", Duration.ofHours(1), Duration.ofHours(24)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class,
				LeasekeeperDataSourceAutoConfiguration.class, DataSourceAutoConfiguration.class))
		.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class);

	@BeforeAll
	static void createTable() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS orders (id serial primary key, item text)");
		}
	}

	static String[] properties() {
		return new String[] { "leasekeeper.vault.uri=" + vault.simulator().uri(),
				"leasekeeper.vault.authentication=approle", "leasekeeper.vault.app-role.role-id=app-role",
				"leasekeeper.vault.app-role.secret-id=app-secret",
				"leasekeeper.leases.orders-db.path=database/creds/orders", "leasekeeper.defaults.renew-at=0.5",
				"leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.jitter=0",
				"leasekeeper.defaults.expiry-buffer=500ms", "leasekeeper.defaults.attempt-timeout=1s",
				"leasekeeper.defaults.retry.initial-interval=200ms", "leasekeeper.defaults.retry.max-interval=500ms" };
	}

	@Test
	@org.junit.jupiter.api.Order(1)
	void storeOutage() {
		survives("Store outage (connections refused) across the planned renewal", "FaultMatrixTests.storeOutage",
				(on) -> vault.simulator().outage(on));
	}

	@Test
	@org.junit.jupiter.api.Order(2)
	void vaultSealed() {
		survives("Vault sealed (503) across the planned renewal", "FaultMatrixTests.vaultSealed",
				(on) -> vault.simulator().sealed(on));
	}

	@Test
	@org.junit.jupiter.api.Order(3)
	void rateLimited() {
		survives("429 on sys/leases/renew across the planned renewal", "FaultMatrixTests.rateLimited",
				(on) -> vault.simulator().rateLimit(on ? "sys/leases/renew" : null));
	}

	@Test
	@org.junit.jupiter.api.Order(4)
	void latencyAboveTheAttemptTimeout() {
		survives("Latency 1.5 s (above the 1 s attempt timeout) across the planned renewal",
				"FaultMatrixTests.latencyAboveTheAttemptTimeout",
				(on) -> vault.simulator().latency(on ? Duration.ofMillis(1500) : Duration.ZERO));
	}

	/**
	 * A fault shorter than the margin, across the planned renewal: the same credential,
	 * renewed once the store answers again, nothing lost and no query failed.
	 */
	private void survives(String fault, String test, Consumer<Boolean> inject) {
		run((context, run) -> {
			LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			LeaseSnapshot before = orders.current();
			Instant planned = before.nextActionAt();
			assertThat(planned).isNotNull();
			waitUntil(planned.minusMillis(300));
			int renewalsBefore = run.events.of(LeaseRenewedEvent.class).size();
			Instant start = Instant.now();
			inject.accept(true);
			pause(FAULT);
			inject.accept(false);
			Instant end = Instant.now();
			await().atMost(MARGIN).until(() -> run.events.of(LeaseRenewedEvent.class).size() > renewalsBefore);
			Duration recovery = Duration.between(end, Instant.now());
			LeaseSnapshot after = orders.current();
			assertThat(after.leaseId()).isEqualTo(before.leaseId());
			assertThat(after.generation()).isEqualTo(1);
			assertThat(after.state()).isEqualTo(LeaseState.ACTIVE);
			assertThat(run.events.of(LeaseLostEvent.class)).isEmpty();
			assertThat(run.events.of(LeaseRotatedEvent.class)).isEmpty();
			assertThat(run.failures()).isEmpty();
			long attempts = vault.simulator()
				.journal((entry) -> entry.path().equals("sys/leases/renew") && !entry.at().isBefore(start)
						&& entry.at().isBefore(end))
				.size();
			record(fault,
					"Credential kept; retried within the margin and renewed once the store answers; "
							+ "nothing lost; no failed query",
					"Generation 1 kept, renewed after the fault, no LeaseLostEvent, 0 failed queries", test,
					"fault " + FAULT.toMillis() + " ms; " + attempts + " attempts reached Vault during it; renewed "
							+ recovery.toMillis() + " ms after the fault; " + run.queries.get() + " queries");
		});
	}

	@Test
	@org.junit.jupiter.api.Order(5)
	void tokenRevoked() {
		run((context, run) -> {
			LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			LeaseRenewer token = context.getBean("vaultTokenLeaseRenewer", LeaseRenewer.class);
			List<JournalEntry> obtained = vault.simulator()
				.journal((entry) -> entry.path().equals("database/creds/orders") && entry.status() == 200);
			String accessor = obtained.get(obtained.size() - 1).accessor();
			String oldUser = username(orders);
			Instant start = Instant.now();
			vault.simulator().revokeToken(accessor);
			awaitRotation(orders, run);
			Duration recovery = Duration.between(start, Instant.now());
			assertThat(token.current().generation()).isEqualTo(2);
			assertThat(vault.simulator()
				.journal((entry) -> entry.path().equals("auth/approle/login") && !entry.at().isBefore(start)))
				.hasSize(1);
			// Vault revoked the secret lease with its token: reported lost, then obtained
			// anew
			assertThat(causes(run)).containsOnly(RotationCause.LOST);
			assertThat(username(orders)).isNotEqualTo(oldUser);
			int failed = onlyUntilTheSwap(run);
			record("Login token revoked out of band (its secret leases, and their database users, with it)",
					"The first statement refused for lost privileges has the lease checked at once; the 403 makes "
							+ "the token look itself up, which Vault refuses: the token and its secret leases are "
							+ "reported lost, the token logged in again, the lease obtained again, the pool swapped",
					"Token generation 2 after a second AppRole login; lease lost with its token, then obtained "
							+ "again (LOST) with a new database user; queries refused only until the swap",
					"FaultMatrixTests.tokenRevoked",
					"new credential in service " + recovery.toMillis() + " ms after the revocation; " + failed
							+ " queries failed, " + run.queries.get() + " succeeded");
		});
	}

	@Test
	@org.junit.jupiter.api.Order(6)
	void leaseRevoked() {
		run((context, run) -> {
			LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			String first = orders.current().leaseId();
			Instant start = Instant.now();
			vault.simulator().revokeLease(first);
			awaitRotation(orders, run);
			Duration recovery = Duration.between(start, Instant.now());
			List<LeaseLostEvent> lost = run.events.of(LeaseLostEvent.class);
			assertThat(lost).hasSize(1);
			assertThat(lost.get(0).getReason()).hasToString("REVOKED");
			assertThat(causes(run)).containsOnly(RotationCause.LOST);
			int failed = onlyUntilTheSwap(run);
			record("Secret lease revoked out of band (its database user dropped)",
					"The first statement refused for lost privileges has the lease checked at once: reported lost "
							+ "once (REVOKED) and obtained again; until then getConnection() fails at once, naming "
							+ "the lease",
					"One LeaseLostEvent (REVOKED), generation 2 (LOST); queries refused (42501, or naming the "
							+ "lease) only until the swap",
					"FaultMatrixTests.leaseRevoked",
					"new credential " + recovery.toMillis() + " ms after the revocation; " + failed
							+ " queries failed, " + run.queries.get() + " succeeded");
		});
	}

	@Test
	@org.junit.jupiter.api.Order(7)
	void databaseRoleDropped() {
		run((context, run) -> {
			LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			LeasedDataSource dataSource = context.getBean(LeasedDataSource.class);
			String first = orders.current().leaseId();
			// right after a renewal, so that a whole window is left: the
			// database's refusal, a connection-timeout away, always comes
			// before the validity ends, whatever phase the test starts in
			// (Vault refuses the renewals meanwhile: the user is gone)
			int renewals = run.events.of(LeaseRenewedEvent.class).size();
			await().atMost(TTL).until(() -> run.events.of(LeaseRenewedEvent.class).size() > renewals);
			vault.simulator().dropDatabaseUser(first);
			Instant start = Instant.now();
			// the pool's connections age out and must be opened again
			dataSource.getPool().getHikariPoolMXBean().softEvictConnections();
			awaitRotation(orders, run);
			Duration recovery = Duration.between(start, Instant.now());
			assertThat(causes(run)).containsOnly(RotationCause.REJECTED);
			assertThat(run.events.of(LeaseLostEvent.class)).isEmpty();
			int failedBefore = run.failures().size();
			queriesRun(run, 20);
			assertThat(run.failures()).hasSize(failedBefore);
			// privileges go first (42501 on open connections), then the log-in (class 28)
			assertThat(run.failures()).allSatisfy((failure) -> assertThat(sqlState(failure)).matches("42501|28.*"));
			await().atMost(Duration.ofSeconds(5)).until(() -> !vault.simulator().isLeaseAlive(first));
			record("Database user dropped out of band (Vault still vouches for the lease)",
					"Open connections keep serving; when a connection must be opened, PostgreSQL refuses it "
							+ "(SQLState 28): the pool asks for a new credential and swaps",
					"Rotated (REJECTED), the old lease revoked; queries failed only until the swap, each with "
							+ "SQLState 42501 or class 28",
					"FaultMatrixTests.databaseRoleDropped",
					"new pool " + recovery.toMillis() + " ms after the connections aged out; " + failedBefore
							+ " queries failed (waiting on the pool's connection-timeout), " + run.queries.get()
							+ " succeeded");
		}, "spring.datasource.hikari.connection-timeout=1000");
	}

	@Test
	@org.junit.jupiter.api.Order(8)
	void maxTtlLowered() {
		run((context, run) -> {
			LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			LeaseSnapshot first = orders.current();
			Duration age = Duration.between(first.obtainedAt(), Instant.now());
			try {
				vault.simulator().changeRole("orders", TTL, age.plusSeconds(8));
				awaitRotation(orders, run);
			}
			finally {
				vault.simulator().changeRole("orders", TTL, Duration.ofHours(1));
			}
			Instant rotatedAt = Instant.now();
			List<LeaseCeilingReachedEvent> ceilings = run.events.of(LeaseCeilingReachedEvent.class);
			assertThat(ceilings).hasSize(1);
			Instant hardExpiry = ceilings.get(0).getHardExpiry();
			assertThat(rotatedAt).isBefore(hardExpiry);
			assertThat(causes(run)).containsOnly(RotationCause.CEILING);
			assertThat(run.events.of(LeaseLostEvent.class)).isEmpty();
			queriesRun(run, 20);
			assertThat(run.failures()).isEmpty();
			record("Max TTL of the role lowered under a live lease",
					"The next renewal comes back capped: ceiling reported, a new credential obtained and swapped in "
							+ "before the hard expiry; no failed query",
					"One LeaseCeilingReachedEvent, rotated (CEILING) before the hard expiry, 0 failed queries",
					"FaultMatrixTests.maxTtlLowered", "rotated " + Duration.between(rotatedAt, hardExpiry).toMillis()
							+ " ms before the hard expiry; " + run.queries.get() + " queries");
		});
	}

	@Test
	@org.junit.jupiter.api.Order(9)
	void wallClockJump() throws Exception {
		try (FakedClockApp app = FakedClockApp.start()) {
			Instant start = Instant.now();
			app.offset("+3600");
			pause(Duration.ofSeconds(11));
			app.offset("+0");
			pause(Duration.ofSeconds(11));
			// the process's lease is the only one renewed meanwhile
			List<JournalEntry> renewals = vault.simulator()
				.journal((entry) -> entry.path().equals("sys/leases/renew") && !entry.at().isBefore(start));
			assertThat(renewals).as("renewals; the process said:%n%s", app.output()).isNotEmpty();
			assertThat(renewals).extracting(JournalEntry::leaseId)
				.as(app.output())
				.containsOnly(renewals.get(0).leaseId());
			String leaseId = renewals.get(0).leaseId();
			assertThat(renewals).allSatisfy((entry) -> assertThat(entry.status()).isEqualTo(200));
			// the step forward looks like a suspend: one verification per lease; the
			// step back changes nothing
			assertThat(app.lines()).filteredOn((line) -> line.contains(SUSPEND_NOTICED)).as(app.output()).hasSize(1);
			// about every 5 s (the planned half of the window), one verification, and
			// retries if an attempt runs past its timeout
			assertThat(renewals).as(app.output()).hasSizeBetween(4, 9);
			assertThat(vault.simulator().isLeaseAlive(leaseId)).isTrue();
			assertThat(app.lines()).noneMatch((line) -> line.startsWith("EVENT LeaseLostEvent")
					|| line.startsWith("EVENT LeaseRotatedEvent") || line.startsWith("EVENT LeaseCeilingReachedEvent"));
			record("Wall clock stepped +1 h, then -1 h, the monotonic clock not following (an NTP step; libfaketime)",
					"The step forward reads as unseen time: every lease verified once, nothing lost; the step back "
							+ "changes nothing",
					"One verification of the lease after the step forward, none after the step back; no loss, "
							+ "rotation or ceiling reported",
					"FaultMatrixTests.wallClockJump",
					renewals.size() + " renewals in 22 s (one of them the verification)");
		}
	}

	@Test
	@org.junit.jupiter.api.Order(10)
	void suspend() throws Exception {
		try (FakedClockApp app = FakedClockApp.start()) {
			Instant started = Instant.now();
			await().atMost(Duration.ofSeconds(15)).until(() -> !renewedSince(started, null).isEmpty());
			String before = renewedSince(started, null).get(0).leaseId();
			// an hour asleep: the wall clock and Vault move on, the monotonic clock does
			// not
			Instant start = Instant.now();
			CLOCK.jump(Duration.ofHours(1));
			app.offset("+3600");
			await().atMost(Duration.ofSeconds(15))
				.until(() -> app.lines()
					.stream()
					.anyMatch((line) -> line.startsWith("EVENT LeaseRotatedEvent orders-db")));
			Duration recovery = Duration.between(start, Instant.now());
			assertThat(app.lines()).filteredOn((line) -> line.contains(SUSPEND_NOTICED)).hasSize(1);
			assertThat(app.lines()).anyMatch((line) -> line.startsWith("EVENT LeaseLostEvent orders-db"));
			assertThat(vault.simulator().isLeaseAlive(before)).isFalse();
			// the new credential is kept alive: renewed in its turn
			await().atMost(Duration.ofSeconds(15)).until(() -> !renewedSince(start, before).isEmpty());
			assertThat(vault.simulator().isLeaseAlive(renewedSince(start, before).get(0).leaseId())).isTrue();
			record("The machine suspended for 1 h: wall clock and Vault move on, the monotonic clock does not "
					+ "(libfaketime, the simulator's clock jumped)",
					"Noticed within seconds: every lease verified, those Vault ended reported lost and obtained again",
					"The suspend noticed once; the lease reported lost (Vault had expired it) and a new one obtained",
					"FaultMatrixTests.suspend", "new credential " + recovery.toMillis() + " ms after the resume");
		}
	}

	/** Successful renewals since an instant, of any lease but {@code except}. */
	private static List<JournalEntry> renewedSince(Instant since, @Nullable String except) {
		return vault.simulator()
			.journal((entry) -> entry.path().equals("sys/leases/renew") && entry.status() == 200
					&& !entry.at().isBefore(since) && !java.util.Objects.equals(entry.leaseId(), except));
	}

	/** The detector's log line. */
	private static final String SUSPEND_NOTICED = "further than Leasekeeper's monotonic clock";

	/**
	 * {@link WallClockJumpApp} in a JVM of its own under libfaketime, whose wall clock a
	 * file sets and whose monotonic clock is left alone.
	 */
	private record FakedClockApp(Process process, Path offsetFile, List<String> lines) implements AutoCloseable {

		static FakedClockApp start() throws Exception {
			File faketime = new File("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");
			if (!faketime.exists()) {
				String missing = "libfaketime is missing: apt-get install faketime (.ci/run does)";
				// CI sets LEASEKEEPER_CI: there, a missing tool fails the build instead
				// of
				// skipping the row
				assertThat(System.getenv("LEASEKEEPER_CI")).as(missing).isNull();
				Assumptions.abort(missing);
			}
			Path offset = Files.createTempFile("leasekeeper-faketime", ".txt");
			Files.writeString(offset, "+0\n");
			List<String> command = new ArrayList<>(
					List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
							System.getProperty("java.class.path"), WallClockJumpApp.class.getName()));
			for (String property : properties()) {
				command.add("--" + property);
			}
			command.add("--logging.level.dev.leasekeeper=INFO");
			command.add("--spring.main.keep-alive=true");
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
			builder.environment().put("LD_PRELOAD", faketime.getPath());
			builder.environment().put("FAKETIME_TIMESTAMP_FILE", offset.toString());
			builder.environment().put("FAKETIME_CACHE_DURATION", "1");
			builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
			// without it libfaketime 0.9.10 makes every timed wait on the monotonic clock
			// return at once (Object.wait(100) takes 0 ms): the JVM's threads spin and
			// starve the application
			builder.environment().put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
			Process process = builder.start();
			List<String> lines = new CopyOnWriteArrayList<>();
			Thread reader = new Thread(() -> {
				try (BufferedReader in = new BufferedReader(
						new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
					for (String line = in.readLine(); line != null; line = in.readLine()) {
						lines.add(line);
					}
				}
				catch (Exception ex) {
					// the process ended
				}
			}, "faked-clock-app-output");
			reader.start();
			FakedClockApp app = new FakedClockApp(process, offset, lines);
			await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("READY") || !process.isAlive());
			assertThat(process.isAlive()).as(app.output()).isTrue();
			return app;
		}

		void offset(String offset) throws Exception {
			Files.writeString(this.offsetFile, offset + "\n");
		}

		String output() {
			return String.join("\n", this.lines);
		}

		@Override
		public void close() throws Exception {
			this.process.destroy();
			if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
			Files.deleteIfExists(this.offsetFile);
		}

	}

	@AfterAll
	static void documented() throws Exception {
		if (rows.size() < 10) {
			// only some of the matrix ran (a single test was asked for): nothing to
			// compare
			return;
		}
		rows.sort(java.util.Comparator.comparing(Row::order));
		String table = table(false);
		Path report = Path.of("target", "reliability", "fault-matrix.md");
		Files.createDirectories(report.getParent());
		Files.writeString(report, table(true));
		Path doc = Path.of("..", "docs", "RELIABILITY.md");
		String text = Files.readString(doc);
		String begin = "<!-- fault-matrix:begin -->\n";
		String end = "<!-- fault-matrix:end -->";
		int from = text.indexOf(begin) + begin.length();
		int to = text.indexOf(end);
		assertThat(from).as("markers in %s", doc).isGreaterThanOrEqualTo(begin.length());
		if (Boolean.getBoolean("leasekeeper.reliability.update")) {
			String figures = "<!-- fault-figures:begin -->\n";
			String figuresEnd = "<!-- fault-figures:end -->";
			String updated = text.substring(0, from) + table + text.substring(to);
			int f = updated.indexOf(figures) + figures.length();
			int g = updated.indexOf(figuresEnd);
			updated = updated.substring(0, f) + figures(Instant.now()) + updated.substring(g);
			Files.writeString(doc, updated);
			return;
		}
		assertThat(text.substring(from, to))
			.as("docs/RELIABILITY.md is out of date: run ./mvnw verify -Dleasekeeper.reliability.update=true")
			.isEqualTo(table);
	}

	private static String table(boolean withFigures) {
		StringBuilder table = new StringBuilder(
				withFigures ? "| Fault | Expected | Observed | Test | Measured |\n" + "|---|---|---|---|---|\n"
						: "| Fault | Expected | Observed | Test |\n|---|---|---|---|\n");
		for (Row row : rows) {
			table.append("| ")
				.append(row.fault())
				.append(" | ")
				.append(row.expected())
				.append(" | ")
				.append(row.observed())
				.append(" | `")
				.append(row.test())
				.append("` |");
			if (withFigures) {
				table.append(' ').append(row.figures()).append(" |");
			}
			table.append('\n');
		}
		return table.toString();
	}

	private static String figures(Instant when) {
		StringBuilder text = new StringBuilder("Measured by `./mvnw verify -Dleasekeeper.reliability.update=true` on "
				+ when.toString().substring(0, 10) + " (" + Runtime.getRuntime().availableProcessors() + " cores, Java "
				+ System.getProperty("java.version") + "):\n\n| Fault | Measured |\n|---|---|\n");
		for (Row row : rows) {
			text.append("| ").append(row.fault()).append(" | ").append(row.figures()).append(" |\n");
		}
		return text.toString();
	}

	private static void record(String fault, String expected, String observed, String test, String figures) {
		int order = switch (test.substring(test.indexOf('.') + 1)) {
			case "storeOutage" -> 1;
			case "vaultSealed" -> 2;
			case "rateLimited" -> 3;
			case "latencyAboveTheAttemptTimeout" -> 4;
			case "tokenRevoked" -> 5;
			case "leaseRevoked" -> 6;
			case "databaseRoleDropped" -> 7;
			case "maxTtlLowered" -> 8;
			case "wallClockJump" -> 9;
			default -> 10;
		};
		rows.add(new Row(order, fault, expected, observed, test, figures));
		System.out.println("Fault matrix: " + fault + ": " + figures);
	}

	// --- the harness
	// -----------------------------------------------------------------------------------------

	private void run(Scenario scenario, String... more) {
		this.runner.withPropertyValues(properties())
			.withPropertyValues("spring.datasource.url=" + vault.jdbcUrl(),
					"leasekeeper.leases.orders-db.datasource=true", "spring.datasource.hikari.maximum-pool-size=4")
			.withPropertyValues(more)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Workload run = new Workload(context.getBean(DataSource.class),
						context.getBean(LeasekeeperAutoConfigurationTests.Events.class));
				run.start();
				try {
					queriesRun(run, 20);
					scenario.run(context, run);
				}
				finally {
					run.stop();
				}
			});
	}

	/**
	 * Waits until the second generation is in use and its {@link LeaseRotatedEvent} is
	 * published: the event follows the swap on the scheduling thread.
	 */
	private static void awaitRotation(LeaseRenewer orders, Workload run) {
		await().atMost(TTL).until(() -> orders.current().generation() == 2 && !causes(run).isEmpty());
	}

	private static List<RotationCause> causes(Workload run) {
		return run.events.of(LeaseRotatedEvent.class)
			.stream()
			.filter((event) -> event.getLeaseName().equals("orders-db"))
			.map(LeaseRotatedEvent::getCause)
			.toList();
	}

	/**
	 * After a revocation out of band, the old credential's privileges are gone at once:
	 * queries may fail until the new pool serves, with the database's refusal or naming
	 * the lease, and never after.
	 * @return how many failed
	 */
	private static int onlyUntilTheSwap(Workload run) {
		int failed = run.failures().size();
		queriesRun(run, 20);
		assertThat(run.failures()).hasSize(failed);
		assertThat(run.failures()).allSatisfy((failure) -> assertThat(
				sqlState(failure).equals("42501") || String.valueOf(failure.getMessage()).contains("'orders-db'"))
			.as("%s", failure)
			.isTrue());
		return failed;
	}

	private static String username(LeaseRenewer lease) {
		return (String) lease.current().data().get("username");
	}

	private static String sqlState(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && sql.getSQLState() != null) {
				return sql.getSQLState();
			}
		}
		return "none";
	}

	private static void queriesRun(Workload run, int count) {
		long before = run.queries.get();
		await().atMost(Duration.ofSeconds(10)).until(() -> run.queries.get() >= before + count);
	}

	private static void waitUntil(Instant instant) {
		pause(Duration.between(Instant.now(), instant));
	}

	/** The length of a fault: an input of the scenario, not a guess at timing. */
	private static void pause(Duration duration) {
		long deadline = System.nanoTime() + duration.toNanos();
		while (System.nanoTime() < deadline) {
			LockSupport.parkNanos(deadline - System.nanoTime());
		}
	}

	@FunctionalInterface
	interface Scenario {

		void run(AssertableApplicationContext context, Workload run) throws Exception;

	}

	/** Two threads querying the application's DataSource, a few ms apart. */
	static final class Workload {

		final AtomicLong queries = new AtomicLong();

		final LeasekeeperAutoConfigurationTests.Events events;

		private final DataSource dataSource;

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final List<Throwable> failures = new CopyOnWriteArrayList<>();

		private final List<Thread> threads = new ArrayList<>();

		Workload(DataSource dataSource, LeasekeeperAutoConfigurationTests.Events events) {
			this.dataSource = dataSource;
			this.events = events;
		}

		void start() {
			for (int i = 0; i < 2; i++) {
				Thread thread = new Thread(() -> {
					while (this.running.get()) {
						try (Connection connection = this.dataSource.getConnection();
								ResultSet result = connection.createStatement()
									.executeQuery("SELECT count(*) FROM orders")) {
							result.next();
							this.queries.incrementAndGet();
						}
						catch (Throwable ex) {
							this.failures.add(ex);
						}
						LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
					}
				}, "fault-matrix-query-" + i);
				thread.start();
				this.threads.add(thread);
			}
		}

		List<Throwable> failures() {
			return this.failures;
		}

		void stop() throws InterruptedException {
			this.running.set(false);
			for (Thread thread : this.threads) {
				thread.join(10_000);
			}
		}

	}

	record Row(int order, String fault, String expected, String observed, String test, String figures) {

	}

}
