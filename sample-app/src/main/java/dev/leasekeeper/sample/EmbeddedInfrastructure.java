package dev.leasekeeper.sample;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.leasekeeper.testkit.EmbeddedPostgresSupport;
import dev.leasekeeper.testkit.PostgresDatabaseBackend;
import dev.leasekeeper.testkit.VaultSimulator;

import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.Profiles;

/**
 * The embedded default: unless the {@code vault} profile is active, start an embedded
 * PostgreSQL and the testkit's Vault simulator in-process, with short TTLs so that
 * renewals, ceilings, rotations and token re-logins all happen within two minutes, and
 * point the application at them. They stop after the application context has closed, so
 * that Leasekeeper's revocations at shutdown reach them.
 */
public class EmbeddedInfrastructure implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	private static final Log logger = LogFactory.getLog(EmbeddedInfrastructure.class);

	static final String ROLE_ID = "sample-app";

	static final String GRANT = "GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {{name}}; "
			+ "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {{name}}";

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		ConfigurableEnvironment environment = context.getEnvironment();
		if (context.getParent() != null || environment.acceptsProfiles(Profiles.of("vault"))) {
			return;
		}
		Running running = Running.start(environment);
		context.getBeanFactory().registerSingleton("embeddedInfrastructure", running);
		// registered before any other bean, so destroyed after all of them: after
		// Leasekeeper has revoked its leases and the pool has closed
		((DefaultSingletonBeanRegistry) context.getBeanFactory()).registerDisposableBean("embeddedInfrastructure",
				running::close);
		environment.getPropertySources().addFirst(new MapPropertySource("embeddedInfrastructure", running.properties));
	}

	/**
	 * The embedded PostgreSQL and Vault simulator of one application.
	 */
	public static final class Running implements AutoCloseable {

		private final EmbeddedPostgres postgres;

		private final VaultSimulator vault;

		private final Map<String, Object> properties = new LinkedHashMap<>();

		private Running(EmbeddedPostgres postgres, VaultSimulator vault, String secretId) {
			this.postgres = postgres;
			this.vault = vault;
			this.properties.put("leasekeeper.vault.uri", vault.uri().toString());
			this.properties.put("leasekeeper.vault.authentication", "approle");
			this.properties.put("leasekeeper.vault.app-role.role-id", ROLE_ID);
			this.properties.put("leasekeeper.vault.app-role.secret-id", secretId);
			this.properties.put("spring.datasource.url", jdbcUrl());
			// TTLs of seconds: attempts and the buffer must fit a 20 s window
			this.properties.put("leasekeeper.defaults.attempt-timeout", "2s");
			this.properties.put("leasekeeper.defaults.expiry-buffer", "1s");
		}

		/** The policy README's "Running the sample against a real Vault" writes. */
		static final String POLICY = """
				path "database/creds/orders"   { capabilities = ["read"] }
				path "sys/leases/renew"        { capabilities = ["update"] }
				path "sys/leases/revoke"       { capabilities = ["update"] }
				path "auth/token/renew-self"   { capabilities = ["update"] }
				path "auth/token/revoke-self"  { capabilities = ["update"] }
				path "auth/token/lookup-self"  { capabilities = ["read"] }
				path "pki/issue/web"           { capabilities = ["update"] }
				path "pki/revoke"              { capabilities = ["update"] }
				""";

		static Running start(ConfigurableEnvironment environment) {
			long started = System.nanoTime();
			EmbeddedPostgres postgres = EmbeddedPostgresSupport.startWithPasswords();
			createSchema(postgres);
			String secretId = UUID.randomUUID().toString();
			VaultSimulator vault = VaultSimulator.builder()
				.port(environment.getProperty("sample.embedded.vault-port", Integer.class, 0))
				.rootToken("hvs.root-" + UUID.randomUUID().toString().replace("-", ""))
				.database(new PostgresDatabaseBackend(postgres.getPostgresDatabase(), "postgres",
						Map.of("orders", GRANT)))
				.databaseRole("orders", duration(environment, "db-ttl", "20s"),
						duration(environment, "db-max-ttl", "60s"))
				// the HTTPS connector's certificate, for localhost
				.pkiRole("web", duration(environment, "cert-ttl", "30s"), duration(environment, "cert-max-ttl", "1h"),
						"localhost")
				// README's "Running the sample against a real Vault": the policy and
				// nothing broader
				.policy("sample-app", POLICY)
				.appRole(ROLE_ID, ROLE_ID, secretId, duration(environment, "token-ttl", "30s"),
						duration(environment, "token-max-ttl", "2m"), java.util.List.of("sample-app"))
				.build()
				.start();
			logger.info("Embedded Vault simulator on " + vault.uri() + " and PostgreSQL on port " + postgres.getPort()
					+ " started in " + Duration.ofNanos(System.nanoTime() - started).toMillis()
					+ " ms (database role 'orders': ttl 20s, max 60s; AppRole token: ttl 30s, max 2m;"
					+ " PKI role 'web': certificates of 30s)");
			return new Running(postgres, vault, secretId);
		}

		private static Duration duration(ConfigurableEnvironment environment, String name, String fallback) {
			return environment.getProperty("sample.embedded." + name, Duration.class,
					org.springframework.boot.convert.DurationStyle.detectAndParse(fallback));
		}

		private static void createSchema(EmbeddedPostgres postgres) {
			try (Connection admin = postgres.getPostgresDatabase().getConnection();
					Statement statement = admin.createStatement()) {
				statement.execute(Schema.SQL);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Cannot create the sample's schema in the embedded PostgreSQL", ex);
			}
		}

		/**
		 * Return the properties that point the application at the embedded pair.
		 * @return the properties
		 */
		public Map<String, Object> properties() {
			return Map.copyOf(this.properties);
		}

		/**
		 * Return the simulator.
		 * @return the simulator
		 */
		public VaultSimulator vault() {
			return this.vault;
		}

		/**
		 * Return the embedded PostgreSQL.
		 * @return the database
		 */
		public EmbeddedPostgres postgres() {
			return this.postgres;
		}

		/**
		 * Return the JDBC URL of the database the dynamic roles log in to.
		 * @return the URL
		 */
		public String jdbcUrl() {
			return this.postgres.getJdbcUrl("postgres", "postgres").replaceAll("[?&]user=postgres", "");
		}

		@Override
		public void close() throws Exception {
			this.vault.close();
			this.postgres.close();
			logger.info("Embedded Vault simulator and PostgreSQL stopped");
		}

	}

}
