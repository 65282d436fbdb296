package dev.leasekeeper.sample;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.leasekeeper.testkit.JournalEntry;

import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged jar as a real process, on the {@code vault} profile against a simulator
 * and PostgreSQL this test runs: SIGTERM revokes the database lease and the token, and
 * the database user is dropped.
 */
class SampleApplicationShutdownIT {

	@Test
	void sigtermRevokesTheLeaseAndTheTokenAndTheDatabaseUserIsDropped() throws Exception {
		try (EmbeddedInfrastructure.Running infrastructure = EmbeddedInfrastructure.Running
			.start(new StandardEnvironment()); PackagedSampleApp app = PackagedSampleApp.start(infrastructure)) {
			Process process = app.process;
			List<String> output = app.output;
			await().atMost(Duration.ofSeconds(90))
				.until(() -> processedOrders(infrastructure) > 0 || !process.isAlive());
			assertThat(process.isAlive()).as("the application runs: %s", output).isTrue();
			String username = processedBy(infrastructure);
			assertThat(roleExists(infrastructure, username)).isTrue();
			// SIGTERM; Process.destroy() would also close the output we read
			process.toHandle().destroy();
			assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("stopped within 60 s").isTrue();
			app.saveOutput("shutdown-it.log");
			List<JournalEntry> journal = infrastructure.vault().journal();
			assertThat(journal).anyMatch((entry) -> entry.path().equals("sys/leases/revoke") && entry.status() == 204
					&& entry.leaseId() != null && entry.leaseId().startsWith("database/creds/orders/"));
			assertThat(journal)
				.anyMatch((entry) -> entry.path().equals("auth/token/revoke-self") && entry.status() == 204);
			assertThat(roleExists(infrastructure, username)).as("database user %s dropped", username).isFalse();
			// the log says what was revoked, and only that
			assertThat(output)
				.anyMatch((line) -> line.matches(".*Lease 'orders-db' generation \\d+ .*: revoked on shutdown"))
				.anyMatch((line) -> line.matches(".*Lease 'vault-token' generation \\d+ .*: revoked on shutdown"))
				.noneMatch((line) -> line.contains("kept on shutdown"));
		}
	}

	private static long processedOrders(EmbeddedInfrastructure.Running infrastructure) throws Exception {
		return Long.parseLong(query(infrastructure, "SELECT count(*) FROM orders WHERE status = 'done'"));
	}

	private static String processedBy(EmbeddedInfrastructure.Running infrastructure) throws Exception {
		return query(infrastructure, "SELECT processed_by FROM orders WHERE status = 'done' ORDER BY id DESC LIMIT 1");
	}

	private static String query(EmbeddedInfrastructure.Running infrastructure, String sql) throws Exception {
		try (Connection admin = infrastructure.postgres().getPostgresDatabase().getConnection();
				ResultSet result = admin.createStatement().executeQuery(sql)) {
			result.next();
			return result.getString(1);
		}
	}

	private static boolean roleExists(EmbeddedInfrastructure.Running infrastructure, String username) throws Exception {
		try (Connection admin = infrastructure.postgres().getPostgresDatabase().getConnection();
				PreparedStatement query = admin.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?")) {
			query.setString(1, username);
			try (ResultSet result = query.executeQuery()) {
				return result.next();
			}
		}
	}

}
