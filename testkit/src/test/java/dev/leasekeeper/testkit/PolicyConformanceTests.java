package dev.leasekeeper.testkit;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * VAULT_SEMANTICS.md §7, policies: every request is authorized against the token's
 * policies as they read at that moment; a refusal is Vault's 403 multierror.
 */
class PolicyConformanceTests {

	private static final String DENIED = "1 error occurred:\n\t* permission denied\n\n";

	/** README's "Running the sample against a real Vault", for the conformance role. */
	private static final String APPLICATION = VaultSimulator.applicationPolicy(VaultTarget.ROLE);

	@RegisterExtension
	static VaultTarget vault = VaultTarget.start();

	@Test
	void aTokenWithOnlyTheDefaultPolicyRenewsAndLooksUpButCannotReadCredentialsNorRevokeLeases() throws Exception {
		String token = vault.tokenWith("default");
		assertThat(vault.get("auth/token/lookup-self", token).status()).isEqualTo(200);
		assertThat(vault.post("auth/token/renew-self", token, Map.of()).status()).isEqualTo(200);
		VaultTarget.Response read = vault.get("database/creds/" + VaultTarget.ROLE, token);
		assertThat(read.status()).isEqualTo(403);
		assertThat(read.errors()).containsExactly(DENIED);
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		assertThat(vault.put("sys/leases/renew", token, Map.of("lease_id", leaseId)).status()).isEqualTo(200);
		assertThat(vault.put("sys/leases/lookup", token, Map.of("lease_id", leaseId)).status()).isEqualTo(200);
		VaultTarget.Response revoke = vault.put("sys/leases/revoke", token, Map.of("lease_id", leaseId));
		assertThat(revoke.status()).isEqualTo(403);
		assertThat(revoke.errors()).containsExactly(DENIED);
	}

	@Test
	void theApplicationPolicyOfTheReadmeGrantsWhatLeasekeeperCallsAndNothingElse() throws Exception {
		vault.writePolicy("leasekeeper-conformance-app", APPLICATION);
		String token = vault.tokenWith("leasekeeper-conformance-app");
		VaultTarget.Response read = vault.get("database/creds/" + VaultTarget.ROLE, token);
		assertThat(read.status()).isEqualTo(200);
		String leaseId = read.leaseId();
		assertThat(vault.put("sys/leases/renew", token, Map.of("lease_id", leaseId)).status()).isEqualTo(200);
		assertThat(vault.put("sys/leases/revoke", token, Map.of("lease_id", leaseId)).status()).isEqualTo(204);
		// the lease id in the URL is another path, which the policy does not name
		assertThat(vault.put("sys/leases/revoke/" + leaseId, token, null).status()).isEqualTo(403);
		assertThat(vault.post("auth/token/create", token, Map.of("ttl", "60s")).status()).isEqualTo(403);
		assertThat(vault.get("sys/policies/acl/leasekeeper-conformance-app", token).status()).isEqualTo(403);
		assertThat(vault.post("auth/token/revoke-self", token, null).status()).isEqualTo(204);
	}

	@Test
	void narrowingAPolicyTakesEffectAtOnceForTheTokensThatHoldIt() throws Exception {
		vault.writePolicy("leasekeeper-conformance-narrowed", APPLICATION);
		String token = vault.tokenWith("leasekeeper-conformance-narrowed");
		assertThat(vault.get("database/creds/" + VaultTarget.ROLE, token).status()).isEqualTo(200);
		vault.writePolicy("leasekeeper-conformance-narrowed",
				"path \"auth/token/lookup-self\" { capabilities = [\"read\"] }");
		assertThat(vault.get("database/creds/" + VaultTarget.ROLE, token).status()).isEqualTo(403);
		assertThat(vault.delete("sys/policies/acl/leasekeeper-conformance-narrowed", vault.rootToken()).status())
			.isEqualTo(204);
		assertThat(vault.get("sys/policies/acl/leasekeeper-conformance-narrowed", vault.rootToken()).status())
			.isEqualTo(404);
		// still the default policy's rights
		assertThat(vault.get("auth/token/lookup-self", token).status()).isEqualTo(200);
	}

	@Test
	void aWrittenPolicyReadsBackAndTheBuiltInOnesCannotBeDeleted() throws Exception {
		vault.writePolicy("leasekeeper-conformance-read", APPLICATION);
		VaultTarget.Response read = vault.get("sys/policies/acl/leasekeeper-conformance-read", vault.rootToken());
		assertThat(read.status()).isEqualTo(200);
		assertThat(read.data()).containsEntry("name", "leasekeeper-conformance-read")
			.containsEntry("policy", APPLICATION);
		assertThat(vault.list("sys/policies/acl", vault.rootToken()).keys()).contains("default", "root",
				"leasekeeper-conformance-read");
		assertThat(vault.delete("sys/policies/acl/default", vault.rootToken()).status()).isEqualTo(400);
		assertThat(vault.delete("sys/policies/acl/root", vault.rootToken()).status()).isEqualTo(400);
	}

	@Test
	void globsGrantAPrefixAndPlusOneSegment() throws Exception {
		vault.writePolicy("leasekeeper-conformance-prefix", "path \"database/creds/*\" { capabilities = [\"read\"] }");
		vault.writePolicy("leasekeeper-conformance-segment",
				"path \"database/+/" + VaultTarget.ROLE + "\" { capabilities = [\"read\"] }");
		vault.writePolicy("leasekeeper-conformance-denied", "path \"database/creds/" + VaultTarget.ROLE
				+ "\" { capabilities = [\"deny\"] }\npath \"database/creds/*\" { capabilities = [\"read\"] }");
		assertThat(vault.get("database/creds/" + VaultTarget.ROLE, vault.tokenWith("leasekeeper-conformance-prefix"))
			.status()).isEqualTo(200);
		assertThat(vault.get("database/creds/" + VaultTarget.ROLE, vault.tokenWith("leasekeeper-conformance-segment"))
			.status()).isEqualTo(200);
		assertThat(vault.get("database/creds/" + VaultTarget.ROLE, vault.tokenWith("leasekeeper-conformance-denied"))
			.status()).isEqualTo(403);
		assertThat(vault
			.get("database/creds/" + VaultTarget.ROLE,
					vault.tokenWith("leasekeeper-conformance-prefix", "leasekeeper-conformance-denied"))
			.status()).isEqualTo(403);
	}

	@Test
	void aPolicyThatIsNoPolicyIsRefused() throws Exception {
		VaultTarget.Response written = vault.put("sys/policies/acl/leasekeeper-conformance-bad", vault.rootToken(),
				Map.of("policy", "path \"x\" { capabilities = [\"fly\"] }"));
		assertThat(written.status()).isEqualTo(400);
		assertThat(vault.get("sys/policies/acl/leasekeeper-conformance-bad", vault.rootToken()).status())
			.isEqualTo(404);
	}

}
