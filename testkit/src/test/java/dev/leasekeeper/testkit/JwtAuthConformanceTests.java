package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vault's JWT auth method ({@code auth/jwt/login}) as the simulator answers it, after
 * hashicorp/vault-plugin-auth-jwt's {@code path_login.go} with
 * {@code jwt_validation_pubkeys}: {@code missing role}, {@code role "<name>" could not be
 * found}, {@code missing token}, a signature no trusted key validates, then the claims
 * (expiry, bound audience); the token's display name is {@code jwt-<sub>}. Simulator
 * only: a real Vault needs the method configured with the identity provider's key.
 */
class JwtAuthConformanceTests {

	private static VaultSimulator simulator;

	private static VaultTarget vault;

	@BeforeAll
	static void start() {
		simulator = VaultSimulator.builder()
			.jwtRole("orders", "orders-service", Duration.ofMinutes(20), Duration.ofHours(1))
			.build()
			.start();
		vault = VaultTarget.of(simulator);
	}

	@AfterAll
	static void stop() {
		simulator.close();
	}

	@Test
	void aSignedJwtForTheRolesAudienceLogsIn() throws Exception {
		String jwt = simulator.signJwt("orders-7f9c", "orders-service", Duration.ofMinutes(5));
		VaultTarget.Response login = vault.post("auth/jwt/login", null, Map.of("role", "orders", "jwt", jwt));
		assertThat(login.status()).isEqualTo(200);
		assertThat(login.json()).containsEntry("mount_type", "jwt");
		assertThat(login.auth()).containsEntry("lease_duration", 1200)
			.containsEntry("metadata", Map.of("role", "orders"));
		String token = (String) login.auth().get("client_token");
		assertThat(vault.get("auth/token/lookup-self", token).data()).containsEntry("display_name", "jwt-orders-7f9c");
	}

	@Test
	void refusalsAreThePluginsInItsOrder() throws Exception {
		String jwt = simulator.signJwt("orders-7f9c", "orders-service", Duration.ofMinutes(5));
		assertThat(vault.post("auth/jwt/login", null, Map.of("jwt", jwt)).errors()).containsExactly("missing role");
		assertThat(vault.post("auth/jwt/login", null, Map.of("role", "billing", "jwt", jwt)).errors())
			.containsExactly("role \"billing\" could not be found");
		assertThat(vault.post("auth/jwt/login", null, Map.of("role", "orders")).errors())
			.containsExactly("missing token");
		String[] parts = jwt.split("\\.");
		String forged = parts[0] + "." + parts[1] + "." + parts[2].substring(0, parts[2].length() - 4) + "AAAA";
		VaultTarget.Response refused = vault.post("auth/jwt/login", null, Map.of("role", "orders", "jwt", forged));
		assertThat(refused.status()).isEqualTo(400);
		assertThat(refused.errors()).containsExactly(
				"error validating token: error verifying token signature: no known key successfully validated the token signature");
		String other = simulator.signJwt("orders-7f9c", "billing-service", Duration.ofMinutes(5));
		assertThat(vault.post("auth/jwt/login", null, Map.of("role", "orders", "jwt", other)).errors().get(0))
			.contains("invalid audience (aud) claim");
		String expired = simulator.signJwt("orders-7f9c", "orders-service", Duration.ofMinutes(-10));
		assertThat(vault.post("auth/jwt/login", null, Map.of("role", "orders", "jwt", expired)).errors().get(0))
			.contains("token is expired (exp)");
	}

}
