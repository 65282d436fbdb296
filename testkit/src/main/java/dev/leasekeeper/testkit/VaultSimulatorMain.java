package dev.leasekeeper.testkit;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;

import org.postgresql.ds.PGSimpleDataSource;

/**
 * Runs the simulator as a process, on port 8200 unless told otherwise, from a small
 * properties file: <pre class="code">
 * port=8200
 * root-token=root
 * database.roles.orders.ttl=20s
 * database.roles.orders.max-ttl=60s
 * database.roles.orders.grant=GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{name}}
 * # optional: a PostgreSQL the database engine creates its roles in
 * database.jdbc-url=jdbc:postgresql://127.0.0.1:5432/app
 * database.username=postgres
 * database.password=postgres
 * approle.roles.worker.role-id=worker-role
 * approle.roles.worker.secret-id=worker-secret
 * approle.roles.worker.token-ttl=30s
 * approle.roles.worker.token-max-ttl=2m
 * </pre>
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class VaultSimulatorMain {

	private VaultSimulatorMain() {
	}

	/**
	 * Start the simulator and wait until the process is stopped.
	 * @param args the path of the properties file, optional
	 * @throws Exception if the file cannot be read or the port is taken
	 */
	public static void main(String[] args) throws Exception {
		Properties properties = new Properties();
		if (args.length > 0) {
			try (Reader reader = Files.newBufferedReader(Path.of(args[0]))) {
				properties.load(reader);
			}
		}
		VaultSimulator simulator = configure(properties).build().start();
		System.out.println("Vault simulator listening on " + simulator.uri() + " (root token from the configuration)");
		CountDownLatch stopped = new CountDownLatch(1);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			simulator.close();
			stopped.countDown();
		}));
		stopped.await();
	}

	/**
	 * Return a simulator builder configured from the given properties.
	 * @param properties the configuration
	 * @return the builder
	 * @throws IOException never; declared for file-based callers
	 */
	static VaultSimulator.Builder configure(Properties properties) throws IOException {
		VaultSimulator.Builder builder = VaultSimulator.builder()
			.port(Integer.parseInt(properties.getProperty("port", "8200")))
			.rootToken(properties.getProperty("root-token", "root"));
		Map<String, String> grants = new LinkedHashMap<>();
		for (String role : names(properties, "database.roles.")) {
			String prefix = "database.roles." + role + ".";
			builder.databaseRole(role, duration(properties, prefix + "ttl", "1h"),
					duration(properties, prefix + "max-ttl", "24h"));
			grants.put(role, properties.getProperty(prefix + "grant", ""));
		}
		for (String role : names(properties, "approle.roles.")) {
			String prefix = "approle.roles." + role + ".";
			builder.appRole(role, required(properties, prefix + "role-id"), required(properties, prefix + "secret-id"),
					duration(properties, prefix + "token-ttl", "1h"),
					duration(properties, prefix + "token-max-ttl", "24h"));
		}
		String jdbcUrl = properties.getProperty("database.jdbc-url");
		if (jdbcUrl != null) {
			PGSimpleDataSource admin = new PGSimpleDataSource();
			admin.setURL(jdbcUrl);
			admin.setUser(properties.getProperty("database.username", "postgres"));
			admin.setPassword(properties.getProperty("database.password", ""));
			builder.database(new PostgresDatabaseBackend(admin, admin.getDatabaseName(), grants));
		}
		return builder;
	}

	private static TreeSet<String> names(Properties properties, String prefix) {
		TreeSet<String> names = new TreeSet<>();
		for (String key : properties.stringPropertyNames()) {
			if (key.startsWith(prefix)) {
				String rest = key.substring(prefix.length());
				int dot = rest.indexOf('.');
				if (dot > 0) {
					names.add(rest.substring(0, dot));
				}
			}
		}
		return names;
	}

	private static Duration duration(Properties properties, String key, String fallback) {
		String value = properties.getProperty(key, fallback);
		try {
			Duration duration = VaultDurations.parse(key, value);
			if (duration == null || duration.isZero()) {
				throw new IllegalArgumentException("Invalid value '" + value + "' for " + key + ": must be positive");
			}
			return duration;
		}
		catch (VaultError ex) {
			throw new IllegalArgumentException(
					"Invalid value '" + value + "' for " + key + ": a duration such as 90, 30s, 10m or 1h30m");
		}
	}

	private static String required(Properties properties, String key) {
		String value = properties.getProperty(key);
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(key + " is required");
		}
		return value;
	}

}
