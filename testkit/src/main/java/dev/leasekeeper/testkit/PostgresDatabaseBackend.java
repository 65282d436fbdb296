package dev.leasekeeper.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;

import javax.sql.DataSource;

/**
 * A {@link DatabaseBackend} on PostgreSQL that runs the statements Vault's PostgreSQL
 * plugin runs: {@code CREATE
 * ROLE ... LOGIN PASSWORD ... VALID UNTIL} plus each role's grant statement,
 * {@code ALTER ROLE ... VALID UNTIL} on renewal, and the default revocation (revoke
 * privileges, {@code REVOKE CONNECT}, {@code DROP ROLE}), which does not terminate open
 * sessions.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class PostgresDatabaseBackend implements DatabaseBackend {

	private static final DateTimeFormatter VALID_UNTIL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ssxxx")
		.withZone(ZoneOffset.UTC);

	private final DataSource admin;

	private final String database;

	private final Map<String, String> grants;

	/**
	 * Create a new backend.
	 * @param admin connections as a superuser (or a role with {@code CREATEROLE})
	 * @param database the database the dynamic roles connect to
	 * @param grants the grant statement of each Vault role, with {@code {{name}}}
	 * standing for the new role
	 */
	public PostgresDatabaseBackend(DataSource admin, String database, Map<String, String> grants) {
		this.admin = admin;
		this.database = database;
		this.grants = Map.copyOf(grants);
	}

	@Override
	public void create(String role, String username, String password, Instant validUntil) {
		String grant = this.grants.getOrDefault(role, "");
		execute("CREATE ROLE " + quote(username) + " WITH LOGIN PASSWORD '" + password.replace("'", "''")
				+ "' VALID UNTIL '" + VALID_UNTIL.format(validUntil) + "'",
				grant.isBlank() ? null : grant.replace("{{name}}", quote(username)));
	}

	@Override
	public void setPassword(String role, String username, String password) {
		String grant = this.grants.getOrDefault(role, "");
		String literal = "'" + password.replace("'", "''") + "'";
		execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + username.replace("'", "''")
				+ "') THEN EXECUTE 'CREATE ROLE " + quote(username).replace("'", "''") + " WITH LOGIN'; END IF; END $$",
				"ALTER ROLE " + quote(username) + " WITH LOGIN PASSWORD " + literal);
		if (!grant.isBlank()) {
			execute(grant.replace("{{name}}", quote(username)), null);
		}
	}

	@Override
	public void renew(String username, Instant validUntil) {
		execute("ALTER ROLE " + quote(username) + " VALID UNTIL '" + VALID_UNTIL.format(validUntil) + "'", null);
	}

	@Override
	public void revoke(String username) {
		String name = quote(username);
		execute("DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + username.replace("'", "''")
				+ "') THEN EXECUTE 'REVOKE ALL PRIVILEGES ON ALL TABLES IN SCHEMA public FROM "
				+ name.replace("'", "''") + "'; EXECUTE 'REVOKE ALL PRIVILEGES ON ALL SEQUENCES IN SCHEMA public FROM "
				+ name.replace("'", "''") + "'; EXECUTE 'REVOKE USAGE ON SCHEMA public FROM " + name.replace("'", "''")
				+ "'; EXECUTE 'REVOKE CONNECT ON DATABASE " + quote(this.database).replace("'", "''") + " FROM "
				+ name.replace("'", "''") + "'; END IF; END $$", "DROP ROLE IF EXISTS " + name);
	}

	private void execute(String first, String second) {
		try (Connection connection = this.admin.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(first);
			if (second != null) {
				statement.execute(second);
			}
		}
		catch (SQLException ex) {
			// never the statement: it holds the password
			throw new IllegalStateException("Database statement failed: " + ex.getSQLState(), null);
		}
	}

	private static String quote(String identifier) {
		return "\"" + identifier.replace("\"", "\"\"") + "\"";
	}

}
