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

	@Test
	void policiesAreSortedWithDefaultAdded() throws Exception {
		VaultTarget.Response created = vault
			.createToken(Map.of("ttl", "60s", "policies", java.util.List.of("leasekeeper-zeta", "leasekeeper-alpha")));
		assertThat(created.auth().get("policies"))
			.isEqualTo(java.util.List.of("default", "leasekeeper-alpha", "leasekeeper-zeta"));
		String token = (String) created.auth().get("client_token");
		assertThat(vault.get("auth/token/lookup-self", token).data().get("policies"))
			.isEqualTo(java.util.List.of("default", "leasekeeper-alpha", "leasekeeper-zeta"));
	}

	@Test
	void lookupSelfCarriesDisplayNameEntityAndMetaAndTheLastRenewalOnceRenewed() throws Exception {
		String token = (String) vault.createToken(Map.of("ttl", "60s")).auth().get("client_token");
		Map<String, Object> before = vault.get("auth/token/lookup-self", token).data();
		assertThat(before).containsEntry("display_name", "token")
			.containsEntry("entity_id", "")
			.containsEntry("meta", null)
			.doesNotContainKeys("last_renewal", "last_renewal_time");
		vault.post("auth/token/renew-self", token, Map.of("increment", 30));
		assertThat(vault.get("auth/token/lookup-self", token).data()).containsKeys("last_renewal", "last_renewal_time");
	}

	@Test
	void aChildWithoutPoliciesInheritsItsParents() throws Exception {
		vault.writePolicy("leasekeeper-inherited", "path \"auth/token/create\" { capabilities = [\"update\"] }");
		String parent = vault.tokenWith("leasekeeper-inherited");
		VaultTarget.Response child = vault.post("auth/token/create", parent, Map.of("ttl", "60s"));
		assertThat(child.status()).isEqualTo(200);
		assertThat(child.auth().get("policies")).isEqualTo(java.util.List.of("default", "leasekeeper-inherited"));
		VaultTarget.Response broader = vault.post("auth/token/create", parent,
				Map.of("ttl", "60s", "policies", java.util.List.of("leasekeeper-other")));
		assertThat(broader.status()).isEqualTo(400);
	}

	@Test
	void aRootChildWithoutTtlNeverExpiresAndIsNotRenewable() throws Exception {
		VaultTarget.Response child = vault.createToken(Map.of());
		assertThat(child.auth().get("policies")).isEqualTo(java.util.List.of("root"));
		assertThat(child.auth()).containsEntry("lease_duration", 0).containsEntry("renewable", false);
		Map<String, Object> lookup = vault.get("auth/token/lookup-self", (String) child.auth().get("client_token"))
			.data();
		assertThat(lookup).containsEntry("ttl", 0).containsEntry("expire_time", null);
	}

	@Test
	void theCreationTtlIsTheTtlAfterCappingWithTheWarning() throws Exception {
		VaultTarget.Response created = vault
			.createToken(Map.of("ttl", "1h", "explicit_max_ttl", "60s", "policies", "default"));
		assertThat(created.auth()).containsEntry("lease_duration", 60);
		assertThat(created.warnings())
			.anySatisfy((warning) -> assertThat(warning).startsWith("TTL of \"1h\" exceeded"));
		String token = (String) created.auth().get("client_token");
		assertThat(vault.get("auth/token/lookup-self", token).data()).containsEntry("creation_ttl", 60);
	}

	@Test
	void lookupSelfAnswersAPostToo() throws Exception {
		VaultTarget.Response lookup = vault.post("auth/token/lookup-self", vault.rootToken(), Map.of());
		assertThat(lookup.status()).isEqualTo(200);
		assertThat(lookup.data()).containsKey("accessor");
	}

	@Test
	void aRenewalWithoutIncrementGrantsThePreviousGrantsTtl() throws Exception {
		String token = (String) vault.createToken(Map.of("ttl", "1h")).auth().get("client_token");
		VaultTarget.Response first = vault.post("auth/token/renew-self", token, Map.of("increment", 120));
		assertThat(first.auth()).containsEntry("lease_duration", 120);
		VaultTarget.Response second = vault.post("auth/token/renew-self", token, Map.of());
		assertThat(second.auth()).containsEntry("lease_duration", 120);
	}

	@Test
	void incrementsAreVaultDurationsWithHoursFractionsAndDays() throws Exception {
		String token = (String) vault.createToken(Map.of("ttl", "1h")).auth().get("client_token");
		assertThat(vault.post("auth/token/renew-self", token, Map.of("increment", "1.5h")).auth())
			.containsEntry("lease_duration", 5400);
		assertThat(vault.post("auth/token/renew-self", token, Map.of("increment", "1d")).auth())
			.containsEntry("lease_duration", 86400);
		assertThat(vault.post("auth/token/renew-self", token, Map.of("increment", "90")).auth())
			.containsEntry("lease_duration", 90);
	}

	@Test
	void aPeriodicTokenWithoutExplicitMaxTtlHasNoCeiling() throws Exception {
		VaultSimulator simulator = vault.simulator();
		String token = (String) vault.createToken(Map.of("period", "10h")).auth().get("client_token");
		// past the system max TTL (768 h), renewing every 9 hours
		for (int renewal = 0; renewal < 90; renewal++) {
			vault.pass(Duration.ofHours(9));
			VaultTarget.Response renewed = vault.post("auth/token/renew-self", token, Map.of());
			assertThat(renewed.status()).isEqualTo(200);
			assertThat(renewed.auth()).containsEntry("lease_duration", 36000);
			assertThat(renewed.warnings()).isEmpty();
		}
		assertThat(simulator.isTokenAlive(token)).isTrue();
	}

	@Test
	void anAppRoleLoginNamesItsRoleAndEntityAndItsUsersSayApprole() throws Exception {
		vault.simulator();
		VaultTarget.Response login = vault.post("auth/approle/login", null,
				Map.of("role_id", "role-id-1", "secret_id", "secret-id-1"));
		assertThat(login.auth()).containsEntry("metadata", Map.of("role_name", "worker"));
		assertThat(login.json()).containsEntry("mount_type", "approle");
		assertThat((String) login.auth().get("entity_id")).isNotEmpty();
		String token = (String) login.auth().get("client_token");
		assertThat(vault.get("auth/token/lookup-self", token).data()).containsEntry("display_name", "approle");
	}

	@Test
	void anAppRoleLoginWithoutSecretIdIsMissingIt() throws Exception {
		vault.simulator();
		VaultTarget.Response login = vault.post("auth/approle/login", null, Map.of("role_id", "role-id-1"));
		assertThat(login.status()).isEqualTo(400);
		assertThat(login.errors()).containsExactly("missing secret_id");
	}

	@Test
	void databaseUsernamesNameTheDisplayNameOfTheTokenThatAskedAndPasswordsHaveTwentyCharacters() throws Exception {
		String prefix = VaultTarget.ROLE.substring(0, 8);
		Map<String, Object> byRoot = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).data();
		assertThat((String) byRoot.get("username")).startsWith("v-root-" + prefix + "-");
		assertThat((String) byRoot.get("password")).hasSize(20).matches("[A-Za-z0-9-]+");
		String child = (String) vault.createToken(Map.of("ttl", "60s")).auth().get("client_token");
		assertThat((String) vault.get("database/creds/" + VaultTarget.ROLE, child).data().get("username"))
			.startsWith("v-token-" + prefix + "-");
		vault.simulator();
		String login = (String) vault
			.post("auth/approle/login", null, Map.of("role_id", "role-id-1", "secret_id", "secret-id-1"))
			.auth()
			.get("client_token");
		vault.writePolicy("worker", "path \"database/creds/*\" { capabilities = [\"read\"] }");
		assertThat((String) vault.get("database/creds/" + VaultTarget.ROLE, login).data().get("username"))
			.startsWith("v-approle-" + prefix + "-");
	}

}
