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
import static org.awaitility.Awaitility.await;

/**
 * Static roles of the database engine ({@code database/static-creds/<role>},
 * {@code database/rotate-role/<role>}) as the simulator answers them, after
 * hashicorp/vault's {@code builtin/logical/database/path_creds_create.go}
 * ({@code pathStaticCredsRead}: {@code username}, {@code password}, {@code ttl} to the
 * next rotation, {@code last_vault_rotation}, {@code rotation_period}; no lease) and
 * {@code path_rotate_credentials.go} ({@code no static role found for role name}),
 * against a real PostgreSQL: a rotation is {@code ALTER ROLE ... PASSWORD}, the old
 * password is refused with SQLState 28P01 at once, open sessions stay; a periodic
 * rotation happens at the first 5 s tick of the rotation queue after it is due.
 */
class StaticRoleConformanceTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.staticRole("billing", "billing_app", Duration.ofSeconds(8),
				"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{name}}")
		.build();

	@BeforeAll
	static void createTable() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS invoices (id serial primary key)");
			statement.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO billing_app");
		}
	}

	@Test
	void aStaticCredentialIsNoLeaseAndSaysWhenItRotates() throws Exception {
		VaultTarget.Response read = vault().get("database/static-creds/billing", vault.simulator().rootToken());
		assertThat(read.status()).isEqualTo(200);
		assertThat(read.json()).containsEntry("lease_id", "").containsEntry("lease_duration", 0);
		Map<String, Object> data = read.data();
		assertThat(data).containsEntry("username", "billing_app").containsEntry("rotation_period", 8);
		assertThat(((Number) data.get("ttl")).longValue()).isBetween(0L, 8L);
		assertThat(Instant.parse((String) data.get("last_vault_rotation"))).isBefore(Instant.now().plusSeconds(1));
		try (Connection connection = login("billing_app", (String) data.get("password"));
				ResultSet result = connection.createStatement().executeQuery("SELECT count(*) FROM invoices")) {
			assertThat(result.next()).isTrue();
		}
	}

	@Test
	void aRotationChangesThePasswordAtOnceAndKeepsOpenSessions() throws Exception {
		String before = password();
		try (Connection open = login("billing_app", before)) {
			VaultTarget.Response rotated = vault().post("database/rotate-role/billing", vault.simulator().rootToken(),
					Map.of());
			assertThat(rotated.status()).isEqualTo(204);
			String after = password();
			assertThat(after).isNotEqualTo(before);
			assertThatExceptionOfType(SQLException.class).isThrownBy(() -> login("billing_app", before))
				.satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("28P01"));
			try (Connection fresh = login("billing_app", after)) {
				assertThat(fresh.isValid(1)).isTrue();
			}
			assertThat(open.createStatement().executeQuery("SELECT 1").next()).isTrue();
		}
	}

	@Test
	void aPeriodicRotationComesAtTheRotationQueuesTickAfterItIsDue() throws Exception {
		String before = password();
		await().atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> !password().equals(before));
		Map<String, Object> data = vault().get("database/static-creds/billing", vault.simulator().rootToken()).data();
		assertThat(((Number) data.get("ttl")).longValue()).isBetween(6L, 8L);
	}

	@Test
	void unknownRolesAreRefusedAsVaultDoes() throws Exception {
		assertThat(vault().get("database/static-creds/orders", vault.simulator().rootToken()).errors())
			.containsExactly("unknown role: orders");
		assertThat(vault().post("database/rotate-role/orders", vault.simulator().rootToken(), Map.of()).errors())
			.containsExactly("no static role found for role name");
	}

	private static String password() throws Exception {
		return (String) vault().get("database/static-creds/billing", vault.simulator().rootToken())
			.data()
			.get("password");
	}

	private static Connection login(String username, String password) throws SQLException {
		return DriverManager.getConnection(vault.jdbcUrl(), username, password);
	}

	private static VaultTarget vault() {
		return VaultTarget.of(vault.simulator());
	}

}
