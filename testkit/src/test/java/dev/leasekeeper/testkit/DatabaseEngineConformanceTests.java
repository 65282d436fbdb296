package dev.leasekeeper.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * VAULT_SEMANTICS.md §5: the PostgreSQL database engine, against a real PostgreSQL with
 * passwords enforced. Runs on the simulator only: it needs admin access to the database
 * behind the engine.
 */
class DatabaseEngineConformanceTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.databaseRole("orders", Duration.ofSeconds(4), Duration.ofSeconds(60),
				"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO {{name}}")
		.build();

	private static VaultTarget http;

	@BeforeAll
	static void createTable() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE orders (id serial primary key, item text)");
			statement.execute("INSERT INTO orders (item) VALUES ('book')");
		}
	}

	@Test
	void aNewCredentialIsALoginRoleValidUntilFiveSecondsAfterItsExpiry() throws Exception {
		Map<String, Object> creds = credentials();
		String username = (String) creds.get("username");
		try (Connection connection = login(username, (String) creds.get("password"));
				ResultSet result = connection.createStatement()
					.executeQuery("SELECT current_user, count(*) FROM orders")) {
			result.next();
			assertThat(result.getString(1)).isEqualTo(username);
			assertThat(result.getInt(2)).isEqualTo(1);
		}
		Instant validUntil = validUntil(username);
		Instant expected = Instant.now().plusSeconds(4 + 5);
		assertThat(Duration.between(validUntil, expected).abs()).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aWrongPasswordIsRefused() throws Exception {
		String username = (String) credentials().get("username");
		assertThatExceptionOfType(SQLException.class).isThrownBy(() -> login(username, "wrong-password"))
			.withMessageContaining("password authentication failed");
	}

	@Test
	void aRenewalMovesValidUntil() throws Exception {
		VaultTarget.Response created = vault().get("database/creds/orders", vault.simulator().rootToken());
		String username = (String) created.data().get("username");
		Instant before = validUntil(username);
		vault().put("sys/leases/renew", vault.simulator().rootToken(),
				Map.of("lease_id", created.leaseId(), "increment", 30));
		Instant after = validUntil(username);
		assertThat(Duration.between(before, after)).isGreaterThan(Duration.ofSeconds(20));
	}

	@Test
	void revocationDropsTheRoleButLeavesOpenSessionsConnectedWithoutPrivileges() throws Exception {
		VaultTarget.Response created = vault().get("database/creds/orders", vault.simulator().rootToken());
		String username = (String) created.data().get("username");
		String password = (String) created.data().get("password");
		try (Connection open = login(username, password)) {
			vault().put("sys/leases/revoke", vault.simulator().rootToken(), Map.of("lease_id", created.leaseId()));
			assertThat(vault.databaseRoleExists(username)).isFalse();
			assertThat(open.isValid(2)).isTrue();
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> open.createStatement().executeQuery("SELECT * FROM orders"))
				.withMessageContaining("permission denied");
		}
		assertThatExceptionOfType(SQLException.class).isThrownBy(() -> login(username, password));
	}

	@Test
	void aDatabaseUserDroppedOutOfBandCannotLogInWhileVaultStillRenewsItsLease() throws Exception {
		VaultTarget.Response created = vault().get("database/creds/orders", vault.simulator().rootToken());
		String username = (String) created.data().get("username");
		vault.simulator().dropDatabaseUser(created.leaseId());
		assertThat(vault.databaseRoleExists(username)).isFalse();
		assertThatExceptionOfType(SQLException.class)
			.isThrownBy(() -> login(username, (String) created.data().get("password")));
		assertThat(vault.simulator().isLeaseAlive(created.leaseId())).isTrue();
	}

	@Test
	void anExpiredLeaseIsRevokedByTheExpiryLoopWithinAboutASecond() throws Exception {
		String username = (String) credentials().get("username");
		long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
		while (vault.databaseRoleExists(username) && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(vault.databaseRoleExists(username)).isFalse();
	}

	private static VaultTarget vault() {
		if (http == null) {
			http = VaultTarget.of(vault.simulator());
		}
		return http;
	}

	private static Map<String, Object> credentials() throws Exception {
		VaultTarget.Response response = vault().get("database/creds/orders", vault.simulator().rootToken());
		assertThat(response.status()).isEqualTo(200);
		return response.data();
	}

	private static Connection login(String username, String password) throws SQLException {
		return DriverManager.getConnection(vault.jdbcUrl(), username, password);
	}

	private static Instant validUntil(String username) throws SQLException {
		try (Connection admin = vault.adminDataSource().getConnection();
				ResultSet result = admin.createStatement()
					.executeQuery("SELECT rolvaliduntil FROM pg_roles WHERE rolname = '" + username + "'")) {
			result.next();
			return result.getTimestamp(1).toInstant();
		}
	}

}
