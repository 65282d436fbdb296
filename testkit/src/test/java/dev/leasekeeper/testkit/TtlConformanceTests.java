package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * VAULT_SEMANTICS.md §1: how a renewal's TTL is granted.
 */
class TtlConformanceTests {

	@RegisterExtension
	static VaultTarget vault = VaultTarget.start();

	@Test
	void aNewLeaseIsGrantedTheRoleDefaultInWholeSeconds() throws Exception {
		VaultTarget.Response creds = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken());
		assertThat(creds.status()).isEqualTo(200);
		assertThat(creds.leaseDuration()).isEqualTo(VaultTarget.ROLE_TTL.toSeconds());
		assertThat(creds.json()).containsEntry("renewable", true);
		assertThat(creds.leaseId()).startsWith("database/creds/" + VaultTarget.ROLE + "/");
		assertThat(creds.data()).containsKeys("username", "password");
	}

	@Test
	void aRenewalGrantsTheIncrementOrWithoutOneTheRoleDefault() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		VaultTarget.Response withIncrement = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", leaseId, "increment", 2));
		assertThat(withIncrement.status()).isEqualTo(200);
		assertThat(withIncrement.leaseDuration()).isEqualTo(2);
		assertThat(withIncrement.leaseId()).isEqualTo(leaseId);
		assertThat(withIncrement.json().get("data")).isNull();
		VaultTarget.Response withoutIncrement = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", leaseId, "increment", 0));
		assertThat(withoutIncrement.leaseDuration()).isEqualTo(VaultTarget.ROLE_TTL.toSeconds());
		assertThat(withoutIncrement.warnings()).isEmpty();
	}

	@Test
	void nearTheMaxTtlTheGrantIsCappedWithVaultsWarningAndStaysRenewable() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		vault.pass(Duration.ofSeconds(3));
		assertThat(vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId, "increment", 4))
			.leaseDuration()).isEqualTo(4);
		vault.pass(Duration.ofMillis(2500));
		VaultTarget.Response capped = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", leaseId, "increment", 4));
		assertThat(capped.status()).isEqualTo(200);
		assertThat(capped.leaseDuration()).isBetween(1L, 3L);
		assertThat(capped.json()).containsEntry("renewable", true);
		assertThat(capped.warnings()).singleElement()
			.asString()
			.matches("TTL of \"4s\" exceeded the effective max_ttl of \"[123]s\"; TTL value is capped accordingly");
	}

	@Test
	void pastTheMaxTtlARenewalIsRefused() throws Exception {
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		// keep it alive until the ceiling, then step past it
		for (int i = 0; i < 3; i++) {
			vault.pass(Duration.ofSeconds(3));
			vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId, "increment", 4));
		}
		vault.pass(Duration.ofMillis(500));
		VaultTarget.Response refused = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", leaseId, "increment", 4));
		assertThat(refused.status()).isEqualTo(400);
		// all three are permanent refusals; which one depends on where in its last second
		// the lease is
		assertThat(refused.errors()).singleElement()
			.isIn("past the max TTL, cannot renew", "lease expired", "lease not found");
	}

	@Test
	void theMaxTtlIsMeasuredFromTheIssueTimeTruncatedToSeconds() throws Exception {
		VaultSimulator simulator = vault.simulator();
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		vault.pass(Duration.ofMillis(2000));
		simulator.clearJournal();
		VaultTarget.Response renewed = vault.put("sys/leases/renew", vault.rootToken(),
				Map.of("lease_id", leaseId, "increment", "10s"));
		// issued in second s, renewed in second s + 2 (or s + 3): 8 − 2 (or 3) whole
		// seconds are left
		assertThat(renewed.leaseDuration()).isIn(5L, 6L);
		assertThat(renewed.warnings()).singleElement().asString().contains("TTL of \"10s\"");
	}

	@Test
	void aPeriodicTokenRenewsToItsPeriodIgnoringTheIncrementUntilItsExplicitMaxTtl() throws Exception {
		VaultTarget.Response created = vault
			.createToken(Map.of("period", "3s", "explicit_max_ttl", "4s", "policies", "default"));
		assertThat(created.status()).isEqualTo(200);
		String token = (String) created.auth().get("client_token");
		assertThat(token).startsWith("hvs.");
		assertThat(((Number) created.auth().get("lease_duration")).longValue()).isEqualTo(3);
		VaultTarget.Response renewed = vault.post("auth/token/renew-self", token, Map.of("increment", 60));
		assertThat(renewed.status()).isEqualTo(200);
		assertThat(((Number) renewed.auth().get("lease_duration")).longValue()).isEqualTo(3);
		assertThat(renewed.leaseId()).isEmpty();
		vault.pass(Duration.ofSeconds(2));
		VaultTarget.Response capped = vault.post("auth/token/renew-self", token, Map.of());
		assertThat(((Number) capped.auth().get("lease_duration")).longValue()).isBetween(1L, 2L);
		assertThat(capped.warnings()).singleElement().asString().endsWith("TTL value is capped accordingly");
	}

	@Test
	void aTokenRenewalGrantsTheIncrementCappedByItsExplicitMaxTtl() throws Exception {
		VaultTarget.Response created = vault.createToken(Map.of("ttl", "4s", "explicit_max_ttl", "6s"));
		String token = (String) created.auth().get("client_token");
		VaultTarget.Response renewed = vault.post("auth/token/renew-self", token, Map.of("increment", "2s"));
		assertThat(((Number) renewed.auth().get("lease_duration")).longValue()).isEqualTo(2);
		VaultTarget.Response capped = vault.post("auth/token/renew-self", token, Map.of("increment", "1h"));
		assertThat(((Number) capped.auth().get("lease_duration")).longValue()).isBetween(5L, 6L);
		assertThat(capped.warnings()).singleElement().asString().startsWith("TTL of \"1h\" exceeded");
	}

}
