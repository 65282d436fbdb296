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
import dev.leasekeeper.testkit.EmbeddedPostgresSupport;
import dev.leasekeeper.testkit.PostgresDatabaseBackend;
import dev.leasekeeper.testkit.VaultSimulator;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
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

	private final EmbeddedPostgres postgres;

	private final VaultSimulator vault;

	private final VaultTemplate client;

	private final String jdbcUrl;

	private RotationUnderLoad(boolean smoke) {
		this.threads = smoke ? 2 : 8;
		this.length = smoke ? Duration.ofSeconds(6) : Duration.ofSeconds(60);
		this.every = smoke ? Duration.ofSeconds(2) : Duration.ofSeconds(5);
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

	static String run(boolean smoke) throws Exception {
		RotationUnderLoad benchmark = new RotationUnderLoad(smoke);
		try {
			// unmeasured: the JIT and PostgreSQL's caches warm up before the first
			// strategy
			benchmark.measure("warm-up", new InPlace(true));
			List<Result> results = new ArrayList<>();
			results.add(benchmark.leasekeeper());
			results.add(benchmark.measure("(b) close the pool, build a new one", new Rebuild()));
			results
				.add(benchmark.measure("(c) softEvictConnections, then setUsername, setPassword", new InPlace(false)));
			results.add(benchmark.measure("(d) setCredentials, then softEvictConnections", new InPlace(true)));
			StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
					"Rotation under load: %d threads querying flat out, a rotation every %d s for %d s, HikariCP pool of "
							+ "10, embedded PostgreSQL with password authentication; \"during\" = the %d s after a "
							+ "rotation starts%n%n",
					benchmark.threads, benchmark.every.toSeconds(), benchmark.length.toSeconds(), DURING.toSeconds()));
			table.append("| Strategy | Rotations | Queries | Failed queries | p50 / p99 outside (ms) | "
					+ "p50 / p99 during (ms) | p99 during / outside |\n|---|---|---|---|---|---|---|\n");
			for (Result result : results) {
				table.append(result.row());
			}
			return table.toString();
		}
		finally {
			benchmark.vault.close();
			benchmark.postgres.close();
		}
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

	private Result measure(String name, Strategy strategy) throws Exception {
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
		Result result = load(name, strategy::current, () -> {
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

	private Result leasekeeper() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.web(WebApplicationType.NONE)
			.properties("leasekeeper.vault.uri=" + this.vault.uri(), "leasekeeper.vault.authentication=token",
					"leasekeeper.vault.token=" + this.vault.rootToken(),
					"leasekeeper.leases.orders-db.path=database/creds/orders",
					"leasekeeper.leases.orders-db.datasource=true", "spring.datasource.url=" + this.jdbcUrl,
					"spring.datasource.hikari.maximum-pool-size=10", "spring.datasource.hikari.connection-timeout=2000",
					"spring.datasource.hikari.pool-name=orders", "spring.main.banner-mode=off")
			.run()) {
			DataSource dataSource = context.getBean(DataSource.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			return load("(a) Leasekeeper's refresher", () -> dataSource, () -> {
				int generation = renewer.current().generation();
				renewer.rotateNow();
				long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
				while (renewer.current().generation() == generation && System.nanoTime() < deadline) {
					Thread.onSpinWait();
				}
			});
		}
	}

	/** Run the query threads for the benchmark's length, rotating at its period. */
	private Result load(String name, Supplier<DataSource> dataSource, Rotation rotation) throws Exception {
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
		long end = origin + this.length.toNanos();
		long next = origin + this.every.toNanos();
		while (next < end) {
			while (System.nanoTime() < next) {
				Thread.sleep(1); // pacing a real-time load, not waiting for an outcome
			}
			rotations.add(System.nanoTime());
			rotation.rotate();
			next += this.every.toNanos();
		}
		while (System.nanoTime() < end) {
			Thread.sleep(1);
		}
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

		String row() {
			return String.format(Locale.ROOT, "| %s | %d | %,d | %,d | %.2f / %.2f | %.2f / %.2f | %.2f |%n", this.name,
					this.rotations, this.queries, this.failed, this.p50Outside, this.p99Outside, this.p50During,
					this.p99During, this.p99During / this.p99Outside);
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
