package dev.leasekeeper.testkit;

import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class VaultSimulatorMainTests {

	@Test
	void aConfigurationFileDeclaresRolesAndAppRoles() throws Exception {
		Properties properties = new Properties();
		properties.setProperty("port", "0");
		properties.setProperty("root-token", "root-from-file");
		properties.setProperty("database.roles.orders.ttl", "20s");
		properties.setProperty("database.roles.orders.max-ttl", "1m");
		properties.setProperty("approle.roles.worker.role-id", "rid");
		properties.setProperty("approle.roles.worker.secret-id", "sid");
		properties.setProperty("approle.roles.worker.token-ttl", "30s");
		try (VaultSimulator simulator = VaultSimulatorMain.configure(properties).build().start()) {
			VaultTarget vault = VaultTarget.of(simulator);
			assertThat(vault.get("database/creds/orders", "root-from-file").leaseDuration()).isEqualTo(20);
			VaultTarget.Response login = vault.post("auth/approle/login", null,
					Map.of("role_id", "rid", "secret_id", "sid"));
			assertThat(((Number) login.auth().get("lease_duration")).longValue()).isEqualTo(30);
		}
	}

	@Test
	void aBadDurationNamesTheKeyAndTheValue() {
		Properties properties = new Properties();
		properties.setProperty("database.roles.orders.ttl", "soon");
		assertThatIllegalArgumentException().isThrownBy(() -> VaultSimulatorMain.configure(properties))
			.withMessageContaining("database.roles.orders.ttl")
			.withMessageContaining("'soon'");
	}

}
