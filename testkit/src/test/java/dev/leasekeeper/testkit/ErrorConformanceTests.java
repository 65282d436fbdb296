package dev.leasekeeper.testkit;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * VAULT_SEMANTICS.md §2 and §3: error statuses, messages and body shapes, and bad input.
 */
class ErrorConformanceTests {

	@RegisterExtension
	static VaultTarget vault = VaultTarget.start();

	@Test
	void anUnknownLeaseIsNotFound() throws Exception {
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", "database/creds/" + VaultTarget.ROLE + "/doesnotexist", "increment", 60));
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).containsExactly("lease not found");
	}

	@Test
	void aRenewalWithoutALeaseIdIsRefused() throws Exception {
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(), Map.of("increment", 60));
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).containsExactly("lease_id must be specified");
	}

	@Test
	void aDeadTokenIsPermissionDeniedAsAMultierror() throws Exception {
		VaultTarget.Response response = vault.get("database/creds/" + VaultTarget.ROLE, "hvs.not-a-token");
		assertThat(response.status()).isEqualTo(403);
		assertThat(response.errors()).containsExactly("1 error occurred:\n\t* permission denied\n\n");
		VaultTarget.Response renewSelf = vault.post("auth/token/renew-self", "hvs.not-a-token", Map.of());
		assertThat(renewSelf.status()).isEqualTo(403);
	}

	@Test
	void aTokensLeaseCannotBeRenewedThroughSysLeases() throws Exception {
		String before = String.join(",", vault.list("sys/leases/lookup/auth/token/create/", vault.rootToken()).keys());
		vault.createToken(Map.of("ttl", "60s"));
		java.util.List<String> keys = new java.util.ArrayList<>(
				vault.list("sys/leases/lookup/auth/token/create/", vault.rootToken()).keys());
		keys.removeAll(java.util.List.of(before.split(",")));
		assertThat(keys).hasSize(1);
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", "auth/token/create/" + keys.get(0)));
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).containsExactly("tokens cannot be renewed through this endpoint");
	}

	@Test
	void aMadeUpTokenLeaseIdIsNotFound() throws Exception {
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", "auth/token/create/leasekeeper-made-up"));
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).containsExactly("lease not found");
	}

	@Test
	void anUnmountedPathHasNoHandler() throws Exception {
		VaultTarget.Response response = vault.get("leasekeeper-no-such-mount/x", vault.rootToken());
		assertThat(response.status()).isEqualTo(404);
		assertThat(response.errors())
			.containsExactly("no handler for route \"leasekeeper-no-such-mount/x\". route entry not found.");
	}

	@Test
	void anUnknownPathUnderAMountIsAnUnsupportedPath() throws Exception {
		VaultTarget.Response response = vault.get("database/leasekeeper-no-such-path", vault.rootToken());
		assertThat(response.status()).isEqualTo(404);
		assertThat(response.errors()).containsExactly("1 error occurred:\n\t* unsupported path\n\n");
	}

	@Test
	void anUnknownDatabaseRoleIsABadRequest() throws Exception {
		VaultTarget.Response response = vault.get("database/creds/leasekeeper-no-such-role", vault.rootToken());
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).singleElement().asString().contains("leasekeeper-no-such-role");
	}

	@Test
	void malformedJsonIsABadRequestWithVaultsErrorShape() throws Exception {
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(), "{\"lease_id\": ");
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).singleElement().asString().startsWith("failed to parse JSON input");
	}

	@Test
	void anArrayBodyIsABadRequest() throws Exception {
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(), "[1, 2]");
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).containsExactly(
				"failed to parse JSON input: json: cannot unmarshal array into Go value of type map[string]interface {}");
	}

	@Test
	void truncatedJsonIsAnUnexpectedEof() throws Exception {
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(), "{\"lease_id\": \"x");
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).containsExactly("failed to parse JSON input: unexpected EOF");
	}

	@Test
	void bytesAfterTheJsonObjectAreIgnored() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(),
				"{\"lease_id\": \"" + leaseId + "\", \"increment\": 2} trailing");
		assertThat(response.status()).isEqualTo(200);
		assertThat(response.leaseDuration()).isEqualTo(2);
	}

	@Test
	void aNumberForTheLeaseIdIsDecodedWeaklyToAString() throws Exception {
		VaultTarget.Response leaseId = vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", 42));
		assertThat(leaseId.status()).isEqualTo(400);
		assertThat(leaseId.errors()).containsExactly("lease not found");
	}

	@Test
	void anIncrementThatIsNoDurationIsAFieldValidationFailure() throws Exception {
		VaultTarget.Response increment = vault.post("auth/token/renew-self", vault.rootToken(),
				Map.of("increment", "soon"));
		assertThat(increment.status()).isEqualTo(400);
		assertThat(increment.errors()).singleElement()
			.asString()
			.startsWith("Field validation failed: error converting input soon for field \"increment\"");
	}

	@Test
	void aNegativeIncrementIsRefused() throws Exception {
		String token = (String) vault.createToken(Map.of("ttl", "1h")).auth().get("client_token");
		VaultTarget.Response increment = vault.post("auth/token/renew-self", token, Map.of("increment", "-5"));
		assertThat(increment.status()).isEqualTo(400);
		assertThat(increment.errors()).containsExactly("cannot provide negative value '-5'");
	}

	@Test
	void everyAnswerNamesItsMountType() throws Exception {
		assertThat(vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).json())
			.containsEntry("mount_type", "database");
		assertThat(vault.get("auth/token/lookup-self", vault.rootToken()).json()).containsEntry("mount_type", "token");
		VaultTarget.Response created = vault.createToken(Map.of("ttl", "1h"));
		assertThat(created.json()).containsEntry("mount_type", "token");
		assertThat(created.auth()).containsKey("mfa_requirement");
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		assertThat(vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId)).json())
			.containsEntry("mount_type", "system");
	}

	@Test
	void anAnswerWithoutBodyIs204() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		VaultTarget.Response response = vault.put("sys/leases/revoke", vault.rootToken(), Map.of("lease_id", leaseId));
		assertThat(response.status()).isEqualTo(204);
		assertThat(response.body()).isEmpty();
	}

	@Test
	void everyAnswerHasVaultsTopLevelFields() throws Exception {
		VaultTarget.Response creds = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken());
		assertThat(creds.json()).containsKeys("request_id", "lease_id", "renewable", "lease_duration", "data",
				"wrap_info", "warnings", "auth");
	}

}
