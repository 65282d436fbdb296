package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * VAULT_SEMANTICS.md §3 and §4: tokens, AppRole, and what dies with a token.
 */
class TokenConformanceTests {

	@RegisterExtension
	static VaultTarget vault = VaultTarget.start();

	@Test
	void lookupSelfDescribesTheToken() throws Exception {
		VaultTarget.Response created = vault.createToken(Map.of("ttl", "60s", "policies", "default"));
		String token = (String) created.auth().get("client_token");
		assertThat(created.auth()).containsKeys("accessor", "policies", "token_policies", "metadata", "lease_duration",
				"renewable", "entity_id", "token_type", "orphan", "num_uses");
		assertThat(created.auth()).containsEntry("renewable", true).containsEntry("token_type", "service");
		VaultTarget.Response lookup = vault.get("auth/token/lookup-self", token);
		assertThat(lookup.status()).isEqualTo(200);
		assertThat(lookup.data()).containsKeys("accessor", "creation_time", "creation_ttl", "expire_time",
				"explicit_max_ttl", "id", "issue_time", "num_uses", "orphan", "path", "policies", "renewable", "ttl",
				"type");
		assertThat(lookup.data()).containsEntry("id", token).containsEntry("creation_ttl", 60);
	}

	@Test
	void anExpiredTokenIsNotFoundSoRenewSelfIsForbidden() throws Exception {
		VaultTarget.Response created = vault.createToken(Map.of("ttl", "2s"));
		String token = (String) created.auth().get("client_token");
		vault.pass(Duration.ofMillis(2500));
		VaultTarget.Response renewed = vault.post("auth/token/renew-self", token, Map.of());
		assertThat(renewed.status()).isEqualTo(403);
		assertThat(renewed.errors()).containsExactly("1 error occurred:\n\t* permission denied\n\n");
	}

	@Test
	void revokingATokenRevokesItsChildrenAndEveryLeaseItCreated() throws Exception {
		String parent = (String) vault.createToken(Map.of("ttl", "60s")).auth().get("client_token");
		String child = (String) vault.post("auth/token/create", parent, Map.of("ttl", "60s"))
			.auth()
			.get("client_token");
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, parent).leaseId();
		assertThat(vault.put("sys/leases/lookup", vault.rootToken(), Map.of("lease_id", leaseId)).status())
			.isEqualTo(200);
		VaultTarget.Response revoked = vault.post("auth/token/revoke-self", parent, null);
		assertThat(revoked.status()).isEqualTo(204);
		assertThat(vault.get("auth/token/lookup-self", child).status()).isEqualTo(403);
		VaultTarget.Response renewal = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", leaseId, "increment", 2));
		assertThat(renewal.status()).isEqualTo(400);
		assertThat(renewal.errors()).singleElement().isIn("lease not found", "lease expired");
	}

	@Test
	void appRoleLogsInWithTheRolesTtlAndRefusesBadCredentials() throws Exception {
		vault.simulator();
		VaultTarget.Response login = vault.post("auth/approle/login", null,
				Map.of("role_id", "role-id-1", "secret_id", "secret-id-1"));
		assertThat(login.status()).isEqualTo(200);
		assertThat((String) login.auth().get("client_token")).startsWith("hvs.");
		assertThat(((Number) login.auth().get("lease_duration")).longValue()).isEqualTo(60);
		VaultTarget.Response refused = vault.post("auth/approle/login", null,
				Map.of("role_id", "role-id-1", "secret_id", "wrong"));
		assertThat(refused.status()).isEqualTo(400);
		assertThat(refused.errors()).containsExactly("invalid role or secret ID");
	}

	@Test
	void anAppRoleTokenIsCappedAtTheRolesMaxTtl() throws Exception {
		VaultSimulator simulator = vault.simulator();
		String token = (String) vault
			.post("auth/approle/login", null, Map.of("role_id", "role-id-1", "secret_id", "secret-id-1"))
			.auth()
			.get("client_token");
		vault.pass(Duration.ofSeconds(50));
		vault.post("auth/token/renew-self", token, Map.of());
		vault.pass(Duration.ofSeconds(50));
		VaultTarget.Response capped = vault.post("auth/token/renew-self", token, Map.of());
		assertThat(((Number) capped.auth().get("lease_duration")).longValue()).isBetween(19L, 20L);
		assertThat(capped.warnings()).singleElement().asString().startsWith("TTL of \"1m\" exceeded");
		assertThat(simulator.isTokenAlive(token)).isTrue();
	}

}
