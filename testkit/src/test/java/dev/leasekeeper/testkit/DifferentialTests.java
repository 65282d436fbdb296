package dev.leasekeeper.testkit;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The differential mode of {@link VaultTarget}: the same requests to two Vaults, and a
 * report of where they answer differently.
 */
class DifferentialTests {

	@Test
	void twoVaultsThatFollowTheSameRulesDoNotDifferOnALeasekeeperSession() throws Exception {
		try (VaultTarget vault = VaultTarget.simulated().compareWith(VaultTarget.simulated())) {
			session(vault);
			assertThat(vault.differences()).isEmpty();
		}
	}

	@Test
	void aVaultThatGrantsAnotherTtlIsReportedWhereItDoes() throws Exception {
		try (VaultTarget vault = VaultTarget.simulated()
			.compareWith(VaultTarget.simulated(VaultTarget.ROLE_TTL.plusSeconds(2)))) {
			session(vault);
			assertThat(vault.differences()).extracting(Differential.Difference::toString)
				.containsExactly("GET database/creds/" + VaultTarget.ROLE + " lease_duration: 4 | reference: 6");
			assertThat(Files.readAllLines(vault.report("DifferentialTests-ttl")))
				.containsExactly("GET database/creds/" + VaultTarget.ROLE + " lease_duration: 4 | reference: 6");
		}
	}

	@Test
	void answersThatDifferInStatusErrorsKeysOrKindsAreEachReported() {
		VaultTarget.Response primary = new VaultTarget.Response(400,
				"{\"errors\":[\"lease not found\"],\"mount_type\":\"system\"}");
		VaultTarget.Response reference = new VaultTarget.Response(500,
				"{\"errors\":[\"internal error\"],\"mount_type\":\"\",\"extra\":1}");
		assertThat(Differential.compare("PUT sys/leases/renew", primary, reference))
			.extracting(Differential.Difference::where)
			.containsExactly("status", "errors", "extra", "mount_type");
		VaultTarget.Response kinds = new VaultTarget.Response(200, "{\"data\":{\"ttl\":\"5\"}}");
		VaultTarget.Response numbers = new VaultTarget.Response(200, "{\"data\":{\"ttl\":5}}");
		assertThat(Differential.compare("GET x", kinds, numbers)).extracting(Differential.Difference::where)
			.containsExactly("data.ttl");
		// ids and times may differ; durations within a second
		VaultTarget.Response one = new VaultTarget.Response(200,
				"{\"request_id\":\"a\",\"lease_id\":\"x/1\",\"lease_duration\":60}");
		VaultTarget.Response other = new VaultTarget.Response(200,
				"{\"request_id\":\"b\",\"lease_id\":\"x/2\",\"lease_duration\":59}");
		assertThat(Differential.compare("GET x", one, other)).isEmpty();
	}

	/**
	 * What Leasekeeper does against Vault: a token, a credential, renewals, a capped
	 * renewal, a policy narrowed, a refusal, revocations.
	 */
	private static void session(VaultTarget vault) throws Exception {
		vault.writePolicy("leasekeeper-differential", "path \"database/creds/" + VaultTarget.ROLE
				+ "\" { capabilities = [\"read\"] }\n" + "path \"sys/leases/revoke\" { capabilities = [\"update\"] }");
		String token = vault.tokenWith("leasekeeper-differential");
		vault.get("auth/token/lookup-self", token);
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, token).leaseId();
		vault.put("sys/leases/renew", token, Map.of("lease_id", leaseId, "increment", 4));
		vault.pass(Duration.ofSeconds(6));
		vault.put("sys/leases/renew", token, Map.of("lease_id", leaseId, "increment", 4));
		vault.post("auth/token/renew-self", token, Map.of("increment", "1.5h"));
		vault.post("auth/token/renew-self", token, Map.of());
		vault.writePolicy("leasekeeper-differential", "path \"sys/leases/revoke\" { capabilities = [\"update\"] }");
		vault.get("database/creds/" + VaultTarget.ROLE, token);
		vault.put("sys/leases/revoke", token, Map.of("lease_id", leaseId));
		vault.put("sys/leases/renew", token, Map.of("lease_id", leaseId));
		vault.put("sys/leases/renew", token, List.of(1));
		vault.post("auth/token/revoke-self", token, null);
		vault.get("auth/token/lookup-self", token);
	}

}
