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
		vault.simulator();
		VaultTarget.Response response = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", "auth/token/create/abc123"));
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).containsExactly("tokens cannot be renewed through this endpoint");
	}

	@Test
	void anUnknownPathIsNotFoundWithAnEmptyErrorList() throws Exception {
		VaultTarget.Response response = vault.get("secret/leasekeeper-no-such-mount/x", vault.rootToken());
		assertThat(response.status()).isEqualTo(404);
		assertThat(response.errors()).isEmpty();
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
	void fieldsOfTheWrongTypeAreBadRequests() throws Exception {
		vault.simulator();
		VaultTarget.Response leaseId = vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", 42));
		assertThat(leaseId.status()).isEqualTo(400);
		assertThat(leaseId.errors()).singleElement().asString().contains("lease_id");
		VaultTarget.Response increment = vault.post("auth/token/renew-self", vault.rootToken(),
				Map.of("increment", "soon"));
		assertThat(increment.status()).isEqualTo(400);
		assertThat(increment.errors()).singleElement().asString().contains("increment");
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
