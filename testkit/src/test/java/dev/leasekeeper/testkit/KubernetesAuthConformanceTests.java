package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vault's Kubernetes auth method ({@code auth/kubernetes/login}) as the simulator answers
 * it, after {@code path_login.go} of hashicorp/vault-plugin-auth-kubernetes (v0.24.1):
 * the parameters are checked first (400 {@code missing role}, {@code missing
 * jwt}), then the role (400 {@code invalid role name "…"}), then the JWT's claims against
 * the role's bound service account names and namespaces (403 {@code service account name
 * not authorized}, {@code namespace not authorized}), then the cluster's TokenReview (403
 * {@code permission denied} for a token the cluster no longer vouches for). A real Vault
 * needs a Kubernetes cluster for this, so these run against the simulator only.
 */
class KubernetesAuthConformanceTests {

	private static SimulatorClock clock;

	private static VaultSimulator simulator;

	private static VaultTarget vault;

	@BeforeAll
	static void start() {
		clock = new SimulatorClock();
		simulator = VaultSimulator.builder()
			.clock(clock)
			.kubernetesRole("orders", "orders", "shop", Duration.ofMinutes(20), Duration.ofHours(1))
			.build()
			.start();
		vault = VaultTarget.of(simulator);
	}

	@AfterAll
	static void stop() {
		simulator.close();
	}

	@Test
	void aBoundServiceAccountLogsInAndItsTokenSaysWhoItIs() throws Exception {
		String jwt = simulator.serviceAccountToken("shop", "orders");
		VaultTarget.Response login = vault.post("auth/kubernetes/login", null, Map.of("role", "orders", "jwt", jwt));
		assertThat(login.status()).isEqualTo(200);
		assertThat(login.json()).containsEntry("mount_type", "kubernetes");
		assertThat(login.auth()).containsEntry("lease_duration", 1200)
			.containsEntry("renewable", true)
			.containsEntry("token_type", "service");
		@SuppressWarnings("unchecked")
		Map<String, Object> metadata = (Map<String, Object>) login.auth().get("metadata");
		assertThat(metadata).containsEntry("role", "orders")
			.containsEntry("service_account_name", "orders")
			.containsEntry("service_account_namespace", "shop")
			.containsKeys("service_account_uid", "service_account_secret_name");
		String token = (String) login.auth().get("client_token");
		VaultTarget.Response lookup = vault.get("auth/token/lookup-self", token);
		assertThat(lookup.data()).containsEntry("display_name", "kubernetes-shop-orders")
			.containsEntry("path", "auth/kubernetes/login");
	}

	@Test
	void itsTokenRenewsUpToTheRolesMaxTtl() throws Exception {
		String jwt = simulator.serviceAccountToken("shop", "orders");
		String token = (String) vault.post("auth/kubernetes/login", null, Map.of("role", "orders", "jwt", jwt))
			.auth()
			.get("client_token");
		for (int i = 0; i < 2; i++) {
			clock.jump(Duration.ofMinutes(15));
			VaultTarget.Response renewed = vault.post("auth/token/renew-self", token, Map.of());
			assertThat(renewed.auth().get("lease_duration")).isEqualTo(1200);
		}
		clock.jump(Duration.ofMinutes(15));
		VaultTarget.Response capped = vault.post("auth/token/renew-self", token, Map.of());
		assertThat(capped.status()).isEqualTo(200);
		// capped at what is left of the max TTL (the clock also runs in real time: 899 or
		// 900)
		assertThat(((Number) capped.auth().get("lease_duration")).intValue()).isBetween(899, 900);
		assertThat(capped.warnings()).isNotEmpty();
	}

	@Test
	void missingParametersAndAnUnknownRoleAreBadRequests() throws Exception {
		String jwt = simulator.serviceAccountToken("shop", "orders");
		VaultTarget.Response noRole = vault.post("auth/kubernetes/login", null, Map.of("jwt", jwt));
		assertThat(noRole.status()).isEqualTo(400);
		assertThat(noRole.errors()).containsExactly("missing role");
		VaultTarget.Response noJwt = vault.post("auth/kubernetes/login", null, Map.of("role", "orders"));
		assertThat(noJwt.status()).isEqualTo(400);
		assertThat(noJwt.errors()).containsExactly("missing jwt");
		VaultTarget.Response unknown = vault.post("auth/kubernetes/login", null, Map.of("role", "billing", "jwt", jwt));
		assertThat(unknown.status()).isEqualTo(400);
		assertThat(unknown.errors()).containsExactly("invalid role name \"billing\"");
	}

	@Test
	void anAccountOrNamespaceTheRoleDoesNotBindIsForbidden() throws Exception {
		VaultTarget.Response otherAccount = vault.post("auth/kubernetes/login", null,
				Map.of("role", "orders", "jwt", simulator.serviceAccountToken("shop", "billing")));
		assertThat(otherAccount.status()).isEqualTo(403);
		assertThat(otherAccount.errors()).containsExactly("service account name not authorized");
		VaultTarget.Response otherNamespace = vault.post("auth/kubernetes/login", null,
				Map.of("role", "orders", "jwt", simulator.serviceAccountToken("staging", "orders")));
		assertThat(otherNamespace.status()).isEqualTo(403);
		assertThat(otherNamespace.errors()).containsExactly("namespace not authorized");
		VaultTarget.Response malformed = vault.post("auth/kubernetes/login", null,
				Map.of("role", "orders", "jwt", "not-a-jwt"));
		assertThat(malformed.status()).isEqualTo(403);
	}

	@Test
	void aTokenTheClusterNoLongerVouchesForIsRefusedAndTheMountedOneIsAccepted() throws Exception {
		String old = simulator.serviceAccountToken("shop", "orders");
		String mounted = simulator.serviceAccountToken("shop", "orders");
		simulator.invalidateServiceAccountToken(old);
		VaultTarget.Response stale = vault.post("auth/kubernetes/login", null, Map.of("role", "orders", "jwt", old));
		assertThat(stale.status()).isEqualTo(403);
		assertThat(stale.errors()).containsExactly("permission denied");
		assertThat(vault.post("auth/kubernetes/login", null, Map.of("role", "orders", "jwt", mounted)).status())
			.isEqualTo(200);
		assertThat(simulator.issuedSecrets()).contains(old, mounted);
	}

}
