package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that gives a test class a started {@link VaultSimulator},
 * optionally with an embedded PostgreSQL (passwords enforced) behind its database secrets
 * engine. <pre class="code">
 * &#64;RegisterExtension
 * static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
 *     .databaseRole("orders", Duration.ofSeconds(20), Duration.ofSeconds(60),
 *         "GRANT ALL ON ALL TABLES IN SCHEMA public TO {{name}}")
 *     .build();
 * </pre>
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class VaultSimulatorExtension implements BeforeAllCallback, AfterAllCallback {

	private final boolean postgres;

	private final Map<String, String> grants;

	private final Consumer<VaultSimulator.Builder> configuration;

	private @Nullable EmbeddedPostgres database;

	private @Nullable VaultSimulator simulator;

	private @Nullable String applicationToken;

	private VaultSimulatorExtension(Builder builder) {
		this.postgres = builder.postgres;
		this.grants = Map.copyOf(builder.grants);
		this.configuration = builder.configuration;
	}

	/**
	 * Return a builder for an extension without a database.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder(false);
	}

	/**
	 * Return a builder for an extension with an embedded PostgreSQL behind the database
	 * engine.
	 * @return the builder
	 */
	public static Builder withPostgres() {
		return new Builder(true);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		VaultSimulator.Builder builder = VaultSimulator.builder()
			.rootToken("hvs.root-" + java.util.UUID.randomUUID().toString().replace("-", ""));
		if (this.postgres) {
			this.database = EmbeddedPostgresSupport.startWithPasswords();
			builder.database(new PostgresDatabaseBackend(this.database.getPostgresDatabase(), "postgres", this.grants));
		}
		this.configuration.accept(builder);
		this.simulator = builder.build().start();
		this.applicationToken = this.simulator.createToken(null, VaultSimulator.APPLICATION_POLICY);
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		if (this.simulator != null) {
			this.simulator.close();
		}
		if (this.database != null) {
			this.database.close();
		}
	}

	/**
	 * Return the running simulator.
	 * @return the simulator
	 */
	public VaultSimulator simulator() {
		if (this.simulator == null) {
			throw new IllegalStateException("The simulator starts before all tests of the class");
		}
		return this.simulator;
	}

	/**
	 * Return the admin {@link DataSource} of the embedded PostgreSQL.
	 * @return the data source
	 */
	public DataSource adminDataSource() {
		return postgres().getPostgresDatabase();
	}

	/**
	 * Return whether a database role exists in the embedded PostgreSQL (Vault's
	 * revocation drops it).
	 * @param username the role's name
	 * @return whether it exists
	 * @throws SQLException if PostgreSQL cannot be asked
	 */
	public boolean databaseRoleExists(String username) throws SQLException {
		try (Connection admin = adminDataSource().getConnection();
				PreparedStatement query = admin.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?")) {
			query.setString(1, username);
			try (ResultSet result = query.executeQuery()) {
				return result.next();
			}
		}
	}

	/**
	 * Return the JDBC URL of the embedded PostgreSQL's {@code postgres} database, for the
	 * dynamic roles.
	 * @return the URL
	 */
	public String jdbcUrl() {
		return postgres().getJdbcUrl("postgres", "postgres").replaceAll("[?&]user=postgres", "");
	}

	/**
	 * Return the token an application is given: a child of the root token (768 h,
	 * renewable) that holds only {@link VaultSimulator#APPLICATION_POLICY} and
	 * {@code default}, as README's "Running the sample against a real Vault" asks.
	 * @return the token
	 */
	public String applicationToken() {
		if (this.applicationToken == null) {
			throw new IllegalStateException("The simulator starts before all tests of the class");
		}
		return this.applicationToken;
	}

	/**
	 * Return the properties that point Leasekeeper at the simulator with the
	 * {@link #applicationToken() application token}, such as
	 * {@code leasekeeper.vault.uri}, and, with PostgreSQL, {@code spring.datasource.url}.
	 * @return the properties
	 */
	public Map<String, String> leasekeeperProperties() {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("leasekeeper.vault.uri", simulator().uri().toString());
		properties.put("leasekeeper.vault.authentication", "token");
		properties.put("leasekeeper.vault.token", applicationToken());
		if (this.database != null) {
			properties.put("spring.datasource.url", jdbcUrl());
		}
		return properties;
	}

	/**
	 * Return {@link #leasekeeperProperties()} as {@code key=value} pairs, for
	 * {@code ApplicationContextRunner.withPropertyValues}.
	 * @return the pairs
	 */
	public String[] propertyValues() {
		List<String> pairs = leasekeeperProperties().entrySet()
			.stream()
			.map((entry) -> entry.getKey() + "=" + entry.getValue())
			.toList();
		return pairs.toArray(String[]::new);
	}

	private EmbeddedPostgres postgres() {
		if (this.database == null) {
			throw new IllegalStateException("This extension was built without PostgreSQL: use withPostgres()");
		}
		return this.database;
	}

	/**
	 * Builds a {@link VaultSimulatorExtension}.
	 */
	public static final class Builder {

		private final boolean postgres;

		private final Map<String, String> grants = new LinkedHashMap<>();

		private Consumer<VaultSimulator.Builder> configuration = (builder) -> {
		};

		private Builder(boolean postgres) {
			this.postgres = postgres;
		}

		/**
		 * Add a database role.
		 * @param name the role's name
		 * @param ttl its {@code default_ttl}
		 * @param maxTtl its {@code max_ttl}
		 * @param grant the grant statement run for each new user, {@code {{name}}}
		 * standing for it
		 * @return this builder
		 */
		public Builder databaseRole(String name, Duration ttl, Duration maxTtl, String grant) {
			this.grants.put(name, grant);
			return configure((builder) -> builder.databaseRole(name, ttl, maxTtl));
		}

		/**
		 * Add a static role managing one database user.
		 * @param name the static role's name
		 * @param username the user (created with the grant if it does not exist)
		 * @param rotationPeriod its {@code rotation_period}
		 * @param grant the grant statement run for the user, {@code {{name}}} standing
		 * for it
		 * @return this builder
		 */
		public Builder staticRole(String name, String username, Duration rotationPeriod, String grant) {
			this.grants.put(name, grant);
			return configure((builder) -> builder.staticRole(name, username, rotationPeriod));
		}

		/**
		 * Configure the simulator further.
		 * @param step what to apply to the simulator's builder
		 * @return this builder
		 */
		public Builder configure(Consumer<VaultSimulator.Builder> step) {
			this.configuration = this.configuration.andThen(step);
			return this;
		}

		/**
		 * Build the extension.
		 * @return the extension
		 */
		public VaultSimulatorExtension build() {
			return new VaultSimulatorExtension(this);
		}

	}

}
