package dev.leasekeeper.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.Credentials;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.testkit.EmbeddedPostgresSupport;
import dev.leasekeeper.testkit.PostgresDatabaseBackend;
import dev.leasekeeper.testkit.VaultSimulator;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;
import org.springframework.vault.support.VaultResponse;

/**
 * Rotation under load: threads querying PostgreSQL (password authentication) flat out
 * through a HikariCP pool while the pool's database credential is replaced every few
 * seconds with one from the testkit simulator, by four strategies. After each strategy's
 * step the replaced lease is revoked, as a rotation must (else every rotation leaves a
 * live database user behind until its TTL).
 */
final class RotationUnderLoad {

	private static final String GRANT = "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{name}}";

	private static final Duration DURING = Duration.ofSeconds(2);

	private final int threads;

	private final Duration length;

	private final Duration every;

	private final int repetitions;

	private final Duration warmUp;

	private final EmbeddedPostgres postgres;

	private final VaultSimulator vault;

	private final VaultTemplate client;

	private final String jdbcUrl;

	private RotationUnderLoad(boolean smoke) {
		this.threads = smoke ? 2 : 8;
		this.length = smoke ? Duration.ofSeconds(6) : Duration.ofSeconds(40);
		this.every = smoke ? Duration.ofSeconds(2) : Duration.ofSeconds(5);
		this.repetitions = smoke ? 1 : 3;
		this.warmUp = smoke ? Duration.ofSeconds(4) : Duration.ofSeconds(15);
		this.postgres = EmbeddedPostgresSupport.startWithPasswords();
		try (Connection admin = this.postgres.getPostgresDatabase().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE orders (id serial primary key, item text)");
			statement.execute("INSERT INTO orders (item) SELECT 'item ' || n FROM generate_series(1, 100) n");
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot prepare PostgreSQL", ex);
		}
		this.vault = VaultSimulator.builder()
			.rootToken("hvs.root-" + UUID.randomUUID().toString().replace("-", ""))
			.database(new PostgresDatabaseBackend(this.postgres.getPostgresDatabase(), "postgres",
					Map.of("orders", GRANT)))
			.databaseRole("orders", Duration.ofHours(1), Duration.ofHours(24))
			.build()
			.start();
		this.client = new VaultTemplate(VaultEndpoint.from(this.vault.uri()),
				new TokenAuthentication(this.vault.rootToken()));
		this.jdbcUrl = this.postgres.getJdbcUrl("postgres", "postgres").replaceAll("[?&]user=postgres", "");
	}

	static final String LEASEKEEPER = "(a) Leasekeeper's refresher";

	static final List<String> STRATEGIES = List.of(LEASEKEEPER, "(b) close the pool, build a new one",
			"(c) softEvictConnections, then setUsername, setPassword", "(d) setCredentials, then softEvictConnections");

	static String run(boolean smoke) throws Exception {
		RotationUnderLoad benchmark = new RotationUnderLoad(smoke);
		try {
			// unmeasured: each strategy's own code path, the JIT and PostgreSQL's caches
			// warm up before anything is measured
			for (String strategy : STRATEGIES) {
				benchmark.run(strategy, benchmark.warmUp);
			}
			Map<String, List<Result>> runs = new java.util.LinkedHashMap<>();
			STRATEGIES.forEach((strategy) -> runs.put(strategy, new ArrayList<>()));
			java.util.Random order = new java.util.Random(2026);
			List<List<String>> orders = new ArrayList<>();
			for (int repetition = 0; repetition < benchmark.repetitions; repetition++) {
				List<String> shuffled = new ArrayList<>(STRATEGIES);
				java.util.Collections.shuffle(shuffled, order);
				orders.add(shuffled);
				for (String strategy : shuffled) {
					runs.get(strategy).add(benchmark.run(strategy, benchmark.length));
				}
			}
			StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
					"Rotation under load: %d threads querying flat out, a rotation every %d s for %d s, HikariCP pool of "
							+ "10, embedded PostgreSQL with password authentication; \"during\" = the %d s after a "
							+ "rotation starts; %d repetition(s) in shuffled orders %s after an unmeasured %d s "
							+ "warm-up of each strategy; each latency the mean over the repetitions (min–max)%n%n",
					benchmark.threads, benchmark.every.toSeconds(), benchmark.length.toSeconds(), DURING.toSeconds(),
					benchmark.repetitions,
					orders.stream()
						.map((shuffled) -> shuffled.stream()
							.map((name) -> name.substring(0, 3))
							.collect(java.util.stream.Collectors.joining(" ")))
						.toList(),
					benchmark.warmUp.toSeconds()));
			table.append(Summary.header());
			List<Summary> summaries = runs.entrySet()
				.stream()
				.map((entry) -> Summary.of(entry.getKey(), entry.getValue()))
				.toList();
			double bestPeer = summaries.stream()
				.filter((summary) -> !summary.name().equals(LEASEKEEPER) && summary.failed() == 0)
				.mapToDouble(Summary::meanP99During)
				.min()
				.orElse(Double.NaN);
			for (Summary summary : summaries) {
				table.append(summary.row(bestPeer));
			}
			return table.toString();
		}
		finally {
			benchmark.vault.close();
			benchmark.postgres.close();
		}
	}

	private Result run(String strategy, Duration length) throws Exception {
		if (strategy.equals(LEASEKEEPER)) {
			return leasekeeper(length);
		}
		if (strategy.startsWith("(b)")) {
			return measure(strategy, new Rebuild(), length);
		}
		return measure(strategy, new InPlace(strategy.startsWith("(d)")), length);
	}

	/** A way to replace the pool's credential with a new one. */
	interface Strategy {

		DataSource start(HikariConfig config);

		/**
		 * Put the new credential in service.
		 */
		void rotate(String username, String password) throws Exception;

		DataSource current();

		void close();

	}

	/** (b) Build a new pool on the new credential, switch to it, close the old one. */
	static final class Rebuild implements Strategy {

		private final AtomicReference<HikariDataSource> pool = new AtomicReference<>();

		private HikariConfig config;

		@Override
		public DataSource start(HikariConfig config) {
			this.config = config;
			this.pool.set(new HikariDataSource(config));
			return this.pool.get();
		}

		@Override
		public void rotate(String username, String password) {
			HikariConfig next = new HikariConfig();
			this.config.copyStateTo(next);
			next.setPoolName(this.config.getPoolName() + "-" + System.nanoTime());
			next.setUsername(username);
			next.setPassword(password);
			HikariDataSource old = this.pool.getAndSet(new HikariDataSource(next));
			old.close();
		}

		@Override
		public DataSource current() {
			return this.pool.get();
		}

		@Override
		public void close() {
			this.pool.get().close();
		}

	}

	/** (c) and (d): change the credential of the running pool, evict its connections. */
	static final class InPlace implements Strategy {

		private final boolean atomic;

		private HikariDataSource pool;

		InPlace(boolean atomic) {
			this.atomic = atomic;
		}

		@Override
		public DataSource start(HikariConfig config) {
			this.pool = new HikariDataSource(config);
			return this.pool;
		}

		@Override
		public void rotate(String username, String password) {
			if (this.atomic) {
				this.pool.getHikariConfigMXBean().setCredentials(Credentials.of(username, password));
				this.pool.getHikariPoolMXBean().softEvictConnections();
			}
			else {
				this.pool.getHikariPoolMXBean().softEvictConnections();
				this.pool.getHikariConfigMXBean().setUsername(username);
				this.pool.getHikariConfigMXBean().setPassword(password);
			}
		}

		@Override
		public DataSource current() {
			return this.pool;
		}

		@Override
		public void close() {
			this.pool.close();
		}

	}

	private Result measure(String name, Strategy strategy, Duration length) throws Exception {
		VaultResponse first = this.client.read("database/creds/orders");
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.jdbcUrl);
		config.setPoolName("orders");
		config.setMaximumPoolSize(10);
		config.setConnectionTimeout(2000);
		config.setUsername((String) first.getRequiredData().get("username"));
		config.setPassword((String) first.getRequiredData().get("password"));
		strategy.start(config);
		AtomicReference<String> lease = new AtomicReference<>(first.getLeaseId());
		Result result = load(name, length, strategy::current, () -> {
			VaultResponse next = this.client.read("database/creds/orders");
			strategy.rotate((String) next.getRequiredData().get("username"),
					(String) next.getRequiredData().get("password"));
			revoke(lease.getAndSet(next.getLeaseId()));
		});
		strategy.close();
		revoke(lease.get());
		return result;
	}

	private void revoke(String leaseId) {
		this.client.write("sys/leases/revoke", Map.of("lease_id", leaseId));
	}

	private Result leasekeeper(Duration length) throws Exception {
		java.util.concurrent.Semaphore rotated = new java.util.concurrent.Semaphore(0);
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.web(WebApplicationType.NONE)
			.listeners((ApplicationEvent event) -> {
				if (event instanceof LeaseRotatedEvent) {
					rotated.release();
				}
			})
			.properties("leasekeeper.vault.uri=" + this.vault.uri(), "leasekeeper.vault.authentication=token",
					"leasekeeper.vault.token=" + this.vault.rootToken(),
					"leasekeeper.leases.orders-db.path=database/creds/orders",
					"leasekeeper.leases.orders-db.datasource=true", "spring.datasource.url=" + this.jdbcUrl,
					"spring.datasource.hikari.maximum-pool-size=10", "spring.datasource.hikari.connection-timeout=2000",
					"spring.datasource.hikari.pool-name=orders", "spring.main.banner-mode=off")
			.run()) {
			DataSource dataSource = context.getBean(DataSource.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			return load(LEASEKEEPER, length, () -> dataSource, () -> {
				rotated.drainPermits();
				renewer.rotateNow();
				// the rotation is done when the new pool serves (LeaseRotatedEvent)
				if (!rotated.tryAcquire(10, java.util.concurrent.TimeUnit.SECONDS)) {
					throw new IllegalStateException("No rotation within 10 s");
				}
			});
		}
	}

	/** Run the query threads for the benchmark's length, rotating at its period. */
	private Result load(String name, Duration length, Supplier<DataSource> dataSource, Rotation rotation)
			throws Exception {
		AtomicBoolean running = new AtomicBoolean(true);
		List<Sampler> samplers = new ArrayList<>();
		for (int i = 0; i < this.threads; i++) {
			Sampler sampler = new Sampler(dataSource, running);
			sampler.setName("query-" + i);
			sampler.start();
			samplers.add(sampler);
		}
		long origin = System.nanoTime();
		List<Long> rotations = new ArrayList<>();
		long end = origin + length.toNanos();
		long next = origin + this.every.toNanos();
		while (next < end) {
			// pacing a real-time load: one sleep until the rotation's instant
			java.util.concurrent.TimeUnit.NANOSECONDS.sleep(next - System.nanoTime());
			rotations.add(System.nanoTime());
			rotation.rotate();
			next += this.every.toNanos();
		}
		java.util.concurrent.TimeUnit.NANOSECONDS.sleep(end - System.nanoTime());
		running.set(false);
		for (Sampler sampler : samplers) {
			sampler.join();
		}
		return Result.of(name, rotations, samplers);
	}

	interface Rotation {

		void rotate() throws Exception;

	}

	/**
	 * A query thread: records when each query started, how long it took, and whether it
	 * failed.
	 */
	static final class Sampler extends Thread {

		private final Supplier<DataSource> dataSource;

		private final AtomicBoolean running;

		long[] started = new long[1 << 16];

		long[] took = new long[1 << 16];

		boolean[] failed = new boolean[1 << 16];

		int count;

		Sampler(Supplier<DataSource> dataSource, AtomicBoolean running) {
			this.dataSource = dataSource;
			this.running = running;
		}

		@Override
		public void run() {
			while (this.running.get()) {
				long start = System.nanoTime();
				boolean failure = false;
				try (Connection connection = this.dataSource.get().getConnection();
						Statement statement = connection.createStatement();
						ResultSet result = statement.executeQuery("SELECT count(*) FROM orders")) {
					result.next();
				}
				catch (Exception ex) {
					failure = true;
				}
				record(start, System.nanoTime() - start, failure);
			}
		}

		private void record(long start, long duration, boolean failure) {
			if (this.count == this.started.length) {
				this.started = Arrays.copyOf(this.started, this.count * 2);
				this.took = Arrays.copyOf(this.took, this.count * 2);
				this.failed = Arrays.copyOf(this.failed, this.count * 2);
			}
			this.started[this.count] = start;
			this.took[this.count] = duration;
			this.failed[this.count] = failure;
			this.count++;
		}

	}

	record Result(String name, int rotations, long queries, long failed, double p50Outside, double p99Outside,
			double p50During, double p99During) {

		static Result of(String name, List<Long> rotations, List<Sampler> samplers) {
			List<Long> outside = new ArrayList<>();
			List<Long> during = new ArrayList<>();
			long queries = 0;
			long failed = 0;
			for (Sampler sampler : samplers) {
				for (int i = 0; i < sampler.count; i++) {
					queries++;
					if (sampler.failed[i]) {
						failed++;
						continue;
					}
					long start = sampler.started[i];
					boolean isDuring = rotations.stream()
						.anyMatch((at) -> start >= at && start < at + DURING.toNanos());
					(isDuring ? during : outside).add(sampler.took[i]);
				}
			}
			return new Result(name, rotations.size(), queries, failed, percentile(outside, 0.5),
					percentile(outside, 0.99), percentile(during, 0.5), percentile(during, 0.99));
		}

		private static double percentile(List<Long> values, double p) {
			if (values.isEmpty()) {
				return Double.NaN;
			}
			long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
			return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] / 1e6;
		}

	}

	/** One strategy over its repetitions. */
	record Summary(String name, int rotations, long queries, long failed, double[] p50Outside, double[] p99Outside,
			double[] p50During, double[] p99During, double[] ratio) {

		static Summary of(String name, List<Result> runs) {
			return new Summary(name, runs.stream().mapToInt(Result::rotations).sum(),
					runs.stream().mapToLong(Result::queries).sum(), runs.stream().mapToLong(Result::failed).sum(),
					figures(runs, Result::p50Outside), figures(runs, Result::p99Outside),
					figures(runs, Result::p50During), figures(runs, Result::p99During),
					figures(runs, (run) -> run.p99During() / run.p99Outside()));
		}

		/** Mean, min and max over the runs. */
		private static double[] figures(List<Result> runs, java.util.function.ToDoubleFunction<Result> figure) {
			java.util.DoubleSummaryStatistics statistics = runs.stream().mapToDouble(figure).summaryStatistics();
			return new double[] { statistics.getAverage(), statistics.getMin(), statistics.getMax() };
		}

		double meanP99During() {
			return this.p99During[0];
		}

		static String header() {
			return "| Strategy | Rotations | Queries | Failed queries | p50 outside (ms) | p99 outside (ms) | "
					+ "p50 during (ms) | p99 during (ms) | p99 during / outside | p99 during / best peer's |\n"
					+ "|---|---|---|---|---|---|---|---|---|---|\n";
		}

		String row(double bestPeer) {
			return String.format(Locale.ROOT, "| %s | %d | %,d | %,d | %s | %s | %s | %s | %s | %.2f |%n", this.name,
					this.rotations, this.queries, this.failed, format(this.p50Outside), format(this.p99Outside),
					format(this.p50During), format(this.p99During), format(this.ratio), this.p99During[0] / bestPeer);
		}

		private static String format(double[] figures) {
			return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", figures[0], figures[1], figures[2]);
		}

	}

	/**
	 * The application of strategy (a): Leasekeeper's auto-configuration, as a user has
	 * it.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
