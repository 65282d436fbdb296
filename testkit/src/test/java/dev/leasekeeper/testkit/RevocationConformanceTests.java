package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * VAULT_SEMANTICS.md §2 and §3: revocation and lookup.
 */
class RevocationConformanceTests {

	@RegisterExtension
	static VaultTarget vault = VaultTarget.start();

	@Test
	void aRevokedLeaseIsNotFoundAndRevokingItAgainSucceeds() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		assertThat(vault.put("sys/leases/revoke", vault.rootToken(), Map.of("lease_id", leaseId)).status())
			.isEqualTo(204);
		VaultTarget.Response renewal = vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId));
		assertThat(renewal.status()).isEqualTo(400);
		assertThat(renewal.errors()).containsExactly("lease not found");
		assertThat(vault.put("sys/leases/revoke", vault.rootToken(), Map.of("lease_id", leaseId)).status())
			.isEqualTo(204);
	}

	@Test
	void anAsynchronousRevocationIsAccepted() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		VaultTarget.Response revoked = vault.put("sys/leases/revoke", vault.rootToken(),
				Map.of("lease_id", leaseId, "sync", false));
		assertThat(revoked.status()).isEqualTo(202);
	}

	@Test
	void lookupDescribesALeaseAndAnUnknownOneIsInvalid() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		VaultTarget.Response lookup = vault.put("sys/leases/lookup", vault.rootToken(), Map.of("lease_id", leaseId));
		assertThat(lookup.status()).isEqualTo(200);
		assertThat(lookup.data()).containsKeys("id", "issue_time", "expire_time", "last_renewal", "ttl", "renewable");
		assertThat(lookup.data()).containsEntry("id", leaseId).containsEntry("last_renewal", null);
		vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId));
		assertThat(vault.put("sys/leases/lookup", vault.rootToken(), Map.of("lease_id", leaseId))
			.data()
			.get("last_renewal")).isNotNull();
		VaultTarget.Response unknown = vault.put("sys/leases/lookup", vault.rootToken(),
				Map.of("lease_id", "database/creds/" + VaultTarget.ROLE + "/unknown"));
		assertThat(unknown.status()).isEqualTo(400);
		assertThat(unknown.errors()).containsExactly("invalid lease");
	}

	@Test
	void anExpiredLeaseIsRevokedByTheExpiryLoopWithinAboutASecond() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		vault.pass(VaultTarget.ROLE_TTL.plusMillis(100));
		if (vault.isSimulator()) {
			VaultSimulator simulator = vault.simulator();
			assertThat(simulator.isLeaseAlive(leaseId)).isFalse();
		}
		// Vault revokes expired leases in the background: within about a second the
		// lookup says invalid
		long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
		VaultTarget.Response lookup;
		do {
			lookup = vault.put("sys/leases/lookup", vault.rootToken(), Map.of("lease_id", leaseId));
		}
		while (lookup.status() == 200 && System.nanoTime() < deadline);
		assertThat(lookup.status()).isEqualTo(400);
	}

	@Test
	void theLeaseIdMayBeGivenInTheUrl() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		VaultTarget.Response renewed = vault.put("sys/leases/renew/" + leaseId, vault.rootToken(),
				Map.of("increment", 3));
		assertThat(renewed.status()).isEqualTo(200);
		assertThat(renewed.leaseId()).isEqualTo(leaseId);
		assertThat(renewed.leaseDuration()).isEqualTo(3);
		assertThat(vault.put("sys/leases/revoke/" + leaseId, vault.rootToken(), null).status()).isEqualTo(204);
		assertThat(vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId)).errors())
			.containsExactly("lease not found");
	}

	@Test
	void aRevocationWithoutALeaseIdIsRefused() throws Exception {
		VaultTarget.Response response = vault.put("sys/leases/revoke", vault.rootToken(), Map.of());
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.errors()).containsExactly("lease_id must be specified");
	}

	@Test
	void aSyncThatIsNoBooleanIsABadRequest() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		VaultTarget.Response response = vault.put("sys/leases/revoke", vault.rootToken(),
				Map.of("lease_id", leaseId, "sync", "soon"));
		assertThat(response.status()).isEqualTo(400);
		assertThat(vault.put("sys/leases/lookup", vault.rootToken(), Map.of("lease_id", leaseId)).status())
			.isEqualTo(200);
	}

	@Test
	void theLeasesOfARevokedTokenExpireAtOnceAndAreRevokedInTheBackground() throws Exception {
		String token = (String) vault.createToken(Map.of("ttl", "60s")).auth().get("client_token");
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, token).leaseId();
		assertThat(vault.post("auth/token/revoke-self", token, null).status()).isEqualTo(204);
		// at once: expired (or, once the background revocation ran, not found)
		assertThat(vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId)).errors())
			.singleElement()
			.isIn("lease expired", "lease not found");
		vault.pass(Duration.ofSeconds(2));
		VaultTarget.Response later = vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId));
		assertThat(later.errors()).containsExactly("lease not found");
	}

}
