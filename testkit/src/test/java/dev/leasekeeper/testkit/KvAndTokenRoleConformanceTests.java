package dev.leasekeeper.testkit;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What fleet scope stands on: Vault's KV version 2 engine at {@code secret/} with
 * check-and-set (hashicorp/vault-plugin-secrets-kv {@code path_data.go},
 * {@code path_metadata.go}) and token roles that make orphan periodic tokens (hashicorp/
 * vault {@code vault/token_store.go}: {@code handleCreateAgainstRole},
 * {@code tokenStoreRoleCreateUpdate}). Every test sets up what it needs through the API,
 * so it runs against a real Vault (with KV version 2 mounted at {@code secret/}) as well.
 */
@SuppressWarnings("unchecked")
class KvAndTokenRoleConformanceTests {

	@RegisterExtension
	static VaultTarget vault = VaultTarget.start();

	@Test
	void aCheckAndSetWriteSucceedsOnlyOnTheCurrentVersion() throws Exception {
		String key = "secret/data/conformance/" + UUID.randomUUID();
		String root = vault.rootToken();
		VaultTarget.Response missing = vault.get(key, root);
		assertThat(missing.status()).isEqualTo(404);
		assertThat(missing.errors()).isEmpty();
		VaultTarget.Response first = vault.post(key, root, Map.of("options", Map.of("cas", 0), "data",
				Map.of("generation", 1, "grant", Map.of("username", "v-1"))));
		assertThat(first.status()).isEqualTo(200);
		assertThat(first.data()).containsEntry("version", 1)
			.containsEntry("destroyed", false)
			.containsEntry("deletion_time", "")
			.containsKey("created_time");
		VaultTarget.Response again = vault.post(key, root,
				Map.of("options", Map.of("cas", 0), "data", Map.of("generation", 2)));
		assertThat(again.status()).isEqualTo(400);
		assertThat(again.errors()).containsExactly("check-and-set parameter did not match the current version");
		VaultTarget.Response second = vault.post(key, root,
				Map.of("options", Map.of("cas", 1), "data", Map.of("generation", 2)));
		assertThat(second.data()).containsEntry("version", 2);
		VaultTarget.Response stale = vault.post(key, root,
				Map.of("options", Map.of("cas", 1), "data", Map.of("generation", 3)));
		assertThat(stale.status()).isEqualTo(400);
		assertThat(stale.errors()).containsExactly("check-and-set parameter did not match the current version");
		VaultTarget.Response read = vault.get(key, root);
		assertThat(read.status()).isEqualTo(200);
		assertThat(read.data()).containsEntry("data", Map.of("generation", 2));
		assertThat((Map<String, Object>) read.data().get("metadata")).containsEntry("version", 2);
		VaultTarget.Response old = vault.get(key + "?version=1", root);
		assertThat(old.data()).containsEntry("data", Map.of("generation", 1, "grant", Map.of("username", "v-1")));
	}

	@Test
	void customMetadataIsReadWithTheEntryAndItsVersions() throws Exception {
		String key = "conformance/" + UUID.randomUUID();
		String root = vault.rootToken();
		vault.post("secret/data/" + key, root, Map.of("data", Map.of("a", "b")));
		VaultTarget.Response written = vault.post("secret/metadata/" + key, root,
				Map.of("custom_metadata", Map.of("generation", "7")));
		assertThat(written.status()).isEqualTo(204);
		VaultTarget.Response metadata = vault.get("secret/metadata/" + key, root);
		assertThat(metadata.data()).containsEntry("current_version", 1)
			.containsEntry("custom_metadata", Map.of("generation", "7"));
		assertThat((Map<String, Object>) metadata.data().get("versions")).containsOnlyKeys("1");
		Map<String, Object> versionMetadata = (Map<String, Object>) vault.get("secret/data/" + key, root)
			.data()
			.get("metadata");
		assertThat(versionMetadata).containsEntry("custom_metadata", Map.of("generation", "7"));
	}

	@Test
	void aTokenRoleMakesOrphanPeriodicTokensThatOutliveTheirCreator() throws Exception {
		String role = "fleet-" + UUID.randomUUID().toString().substring(0, 8);
		String root = vault.rootToken();
		vault.writePolicy("fleet-grant",
				"path \"database/creds/" + VaultTarget.ROLE + "\" { capabilities = [\"read\"] }");
		vault.writePolicy("fleet-creator", "path \"auth/token/create/" + role + "\" { capabilities = [\"update\"] }");
		assertThat(vault
			.post("auth/token/roles/" + role, root,
					Map.of("allowed_policies", List.of("fleet-grant"), "orphan", true, "token_period", "60s"))
			.status()).isEqualTo(204);
		assertThat(vault.get("auth/token/roles/" + role, root).data()).containsEntry("orphan", true)
			.containsEntry("token_period", 60)
			.containsEntry("allowed_policies", List.of("fleet-grant"));
		String creator = vault.tokenWith("fleet-creator");
		VaultTarget.Response created = vault.post("auth/token/create/" + role, creator, Map.of());
		assertThat(created.status()).isEqualTo(200);
		assertThat(created.auth()).containsEntry("orphan", true)
			.containsEntry("lease_duration", 60)
			.containsEntry("renewable", true)
			.containsEntry("token_policies", List.of("default", "fleet-grant"));
		String group = (String) created.auth().get("client_token");
		VaultTarget.Response lookup = vault.get("auth/token/lookup-self", group);
		assertThat(lookup.data()).containsEntry("orphan", true)
			.containsEntry("period", 60)
			.containsEntry("path", "auth/token/create/" + role);
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, group).leaseId();
		assertThat(vault.post("auth/token/revoke-self", creator, null).status()).isEqualTo(204);
		assertThat(vault.get("auth/token/lookup-self", group).status()).isEqualTo(200);
		VaultTarget.Response renewed = vault.put("sys/leases/renew", group, Map.of("lease_id", leaseId));
		assertThat(renewed.status()).isEqualTo(200);
	}

	@Test
	void aTokenRoleRefusesPoliciesItDoesNotAllowAndAnUnknownRoleIsABadRequest() throws Exception {
		String role = "fleet-" + UUID.randomUUID().toString().substring(0, 8);
		String root = vault.rootToken();
		vault.post("auth/token/roles/" + role, root,
				Map.of("allowed_policies", "fleet-grant", "orphan", true, "token_period", "60s"));
		VaultTarget.Response refused = vault.post("auth/token/create/" + role, root,
				Map.of("policies", List.of("fleet-grant", "admin")));
		assertThat(refused.status()).isEqualTo(400);
		assertThat(refused.errors()).singleElement()
			.asString()
			.contains("must be subset of the role's allowed policies");
		VaultTarget.Response unknown = vault.post("auth/token/create/no-such-role-" + role, root, Map.of());
		assertThat(unknown.status()).isEqualTo(400);
		assertThat(unknown.errors()).containsExactly("unknown role no-such-role-" + role);
	}

}
