package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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
		.configure((builder) -> builder.appRole("worker", "worker-role", "worker-secret", Duration.ofSeconds(30),
				Duration.ofMinutes(5)))
		.build();

	@Test
	void closingTheContextRevokesTheSecretLeasesThenTheTokenAndTheRolesAreDropped() throws Exception {
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

}
