package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Context close revokes the secret leases, then the token, and the database roles are
 * gone.
 */
class ShutdownIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1),
				"GRANT CONNECT ON DATABASE postgres TO {{name}}")
		.databaseRole("reports", Duration.ofMinutes(10), Duration.ofHours(1),
				"GRANT CONNECT ON DATABASE postgres TO {{name}}")
		.databaseRole("audit", Duration.ofMinutes(10), Duration.ofHours(1),
				"GRANT CONNECT ON DATABASE postgres TO {{name}}")
		.configure((builder) -> builder.appRole("worker", "worker-role", "worker-secret", Duration.ofSeconds(30),
				Duration.ofMinutes(5)))
		.build();

	@Test
	void closingTheContextRevokesTheSecretLeasesThenTheTokenAndTheRolesAreDropped() throws Exception {
		vault.simulator().clearJournal();
		String[] state = new String[3];
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
			.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri(),
					"leasekeeper.vault.authentication=approle", "leasekeeper.vault.app-role.role-id=worker-role",
					"leasekeeper.vault.app-role.secret-id=worker-secret",
					"leasekeeper.leases.orders-db.path=database/creds/orders")
			.run((context) -> {
				LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				state[0] = orders.current().leaseId();
				state[1] = (String) orders.current().data().get("username");
				state[2] = vault.simulator()
					.journal((entry) -> entry.path().equals("database/creds/orders"))
					.get(0)
					.accessor();
				assertThat(vault.databaseRoleExists(state[1])).isTrue();
			});
		assertThat(vault.simulator().isLeaseAlive(state[0])).isFalse();
		assertThat(vault.simulator().isTokenAlive(state[2])).isFalse();
		assertThat(vault.databaseRoleExists(state[1])).isFalse();
		List<String> shutdown = vault.simulator()
			.journal((entry) -> entry.path().equals("sys/leases/revoke")
					|| entry.path().equals("auth/token/revoke-self"))
			.stream()
			.map(JournalEntry::path)
			.toList();
		assertThat(shutdown).containsExactly("sys/leases/revoke", "auth/token/revoke-self");
	}

	@Test
	void theLeasesStopInParallelAndTheLogSaysWhatWasRevokedAndWhatWasKept() {
		vault.simulator().clearJournal();
		ListAppender<ILoggingEvent> logs = new ListAppender<>();
		Logger leasekeeper = (Logger) LoggerFactory.getLogger("dev.leasekeeper");
		Level level = leasekeeper.getLevel();
		logs.start();
		leasekeeper.addAppender(logs);
		leasekeeper.setLevel(Level.INFO);
		// each revocation takes 800 ms: one after the other, three would take 2.4 s
		vault.simulator().latency((path) -> path.equals("sys/leases/revoke") ? Duration.ofMillis(800) : Duration.ZERO);
		try {
			new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
				.withPropertyValues(vault.propertyValues())
				.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders",
						"leasekeeper.leases.reports-db.path=database/creds/reports",
						"leasekeeper.leases.audit-db.path=database/creds/audit")
				.run((context) -> assertThat(context).hasNotFailed());
		}
		finally {
			vault.simulator().latency(Duration.ZERO);
			leasekeeper.detachAppender(logs);
			leasekeeper.setLevel(level);
		}
		List<String> output = logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
		List<JournalEntry> revocations = vault.simulator().journal((entry) -> entry.path().equals("sys/leases/revoke"));
		assertThat(revocations).hasSize(3).allSatisfy((entry) -> assertThat(entry.status()).isEqualTo(204));
		Duration spread = Duration.between(revocations.get(0).at(), revocations.get(2).at());
		assertThat(spread).as("the three revocations were sent together").isLessThan(Duration.ofMillis(700));
		assertThat(output).filteredOn((line) -> line.endsWith("revoked on shutdown"))
			.hasSize(3)
			.anySatisfy((line) -> assertThat(line).startsWith("Lease 'orders-db' generation 1"))
			.anySatisfy((line) -> assertThat(line).startsWith("Lease 'reports-db' generation 1"))
			.anySatisfy((line) -> assertThat(line).startsWith("Lease 'audit-db' generation 1"));
		// the token was handed in: not Leasekeeper's to revoke, and not said to be
		assertThat(output).contains("Lease 'vault-token' generation 1 (auth/token/****): kept on shutdown (not "
				+ "Leasekeeper's to revoke)");
		assertThat(vault.simulator().journal((entry) -> entry.path().equals("auth/token/revoke-self"))).isEmpty();
		assertThat(vault.simulator().isTokenAlive(vault.applicationToken())).isTrue();
	}

}
