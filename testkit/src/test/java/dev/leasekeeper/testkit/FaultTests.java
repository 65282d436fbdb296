package dev.leasekeeper.testkit;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The simulator's faults on demand, each reversible. These cannot run against a real
 * Vault.
 */
class FaultTests {

	@RegisterExtension
	static VaultTarget vault = VaultTarget.start();

	@Test
	void anOutageRefusesConnectionsUntilItEnds() throws Exception {
		VaultSimulator simulator = vault.simulator();
		simulator.outage(true);
		try {
			assertThatExceptionOfType(ConnectException.class).isThrownBy(() -> vault.get("sys/health", null));
		}
		finally {
			simulator.outage(false);
		}
		assertThat(vault.get("sys/health", null).status()).isEqualTo(200);
	}

	@Test
	void hangingConnectionsAreNeverAnsweredNorReachVaultAndCloseUnansweredWhenTheHangEnds() throws Exception {
		VaultSimulator simulator = vault.simulator();
		HttpClient http = HttpClient.newHttpClient();
		HttpRequest health = HttpRequest.newBuilder(simulator.uri().resolve("/v1/sys/health")).build();
		simulator.clearJournal();
		simulator.hang(true);
		CompletableFuture<HttpResponse<String>> held;
		try {
			HttpRequest timed = HttpRequest.newBuilder(simulator.uri().resolve("/v1/sys/health"))
				.timeout(Duration.ofMillis(300))
				.build();
			assertThatExceptionOfType(HttpTimeoutException.class)
				.isThrownBy(() -> http.send(timed, HttpResponse.BodyHandlers.ofString()));
			// a PUT: the JDK client would send a GET again on a connection closed
			// unanswered
			HttpRequest renew = HttpRequest.newBuilder(simulator.uri().resolve("/v1/sys/leases/renew"))
				.PUT(HttpRequest.BodyPublishers.ofString("{\"lease_id\":\"database/creds/none/x\"}"))
				.build();
			held = http.sendAsync(renew, HttpResponse.BodyHandlers.ofString());
			await().atMost(Duration.ofSeconds(5)).until(() -> simulator.heldRequests() == 2);
			assertThat(held).isNotDone();
		}
		finally {
			assertThat(simulator.hang(false)).isEqualTo(2);
		}
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> held.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(IOException.class);
		assertThat(simulator.journal()).isEmpty();
		assertThat(http.send(health, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
		assertThat(simulator.journal()).hasSize(1);
	}

	@Test
	void sealedAnswers503ExceptHealthWhichSaysSealed() throws Exception {
		VaultSimulator simulator = vault.simulator();
		simulator.sealed(true);
		try {
			VaultTarget.Response creds = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken());
			assertThat(creds.status()).isEqualTo(503);
			assertThat(creds.errors()).containsExactly("Vault is sealed");
			VaultTarget.Response health = vault.get("sys/health", null);
			assertThat(health.status()).isEqualTo(503);
			assertThat(health.json()).containsEntry("sealed", true);
		}
		finally {
			simulator.sealed(false);
		}
		assertThat(vault.get("sys/health", null).json()).containsEntry("sealed", false);
	}

	@Test
	void aRateLimitQuotaAnswers429OnMatchingPaths() throws Exception {
		VaultSimulator simulator = vault.simulator();
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		simulator.rateLimit("sys/leases/.*");
		try {
			VaultTarget.Response limited = vault.put("sys/leases/renew", vault.rootToken(),
					Map.of("lease_id", leaseId));
			assertThat(limited.status()).isEqualTo(429);
			assertThat(limited.errors())
				.containsExactly("request path \"sys/leases/renew\": rate limit quota exceeded");
			assertThat(vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).status()).isEqualTo(200);
		}
		finally {
			simulator.rateLimit(null);
		}
		assertThat(vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId)).status())
			.isEqualTo(200);
	}

	@Test
	void latencyDelaysAnswers() throws Exception {
		VaultSimulator simulator = vault.simulator();
		simulator.latency((path) -> path.equals("sys/health") ? Duration.ofMillis(300) : Duration.ZERO);
		try {
			long start = System.nanoTime();
			vault.get("sys/health", null);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		}
		finally {
			simulator.latency(Duration.ZERO);
		}
	}

	@Test
	void aLeaseOrATokenRevokedOutOfBandIsGone() throws Exception {
		VaultSimulator simulator = vault.simulator();
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseId();
		simulator.revokeLease(leaseId);
		assertThat(vault.put("sys/leases/renew", vault.rootToken(), Map.of("lease_id", leaseId)).errors())
			.containsExactly("lease not found");
		String token = (String) vault.createToken(Map.of("ttl", "60s")).auth().get("client_token");
		String accessor = (String) vault.get("auth/token/lookup-self", token).data().get("accessor");
		simulator.revokeToken(accessor);
		assertThat(vault.post("auth/token/renew-self", token, Map.of()).status()).isEqualTo(403);
	}

	@Test
	void aRolesTtlCanBeChanged() throws Exception {
		VaultSimulator simulator = vault.simulator();
		simulator.changeRole(VaultTarget.ROLE, Duration.ofSeconds(2), VaultTarget.ROLE_MAX_TTL);
		try {
			assertThat(vault.get("database/creds/" + VaultTarget.ROLE, vault.rootToken()).leaseDuration()).isEqualTo(2);
		}
		finally {
			simulator.changeRole(VaultTarget.ROLE, VaultTarget.ROLE_TTL, VaultTarget.ROLE_MAX_TTL);
		}
	}

	@Test
	void theJournalRecordsEveryRequestWithTheTokensAccessorAndTheStatus() throws Exception {
		VaultSimulator simulator = vault.simulator();
		String token = (String) vault.createToken(Map.of("ttl", "60s")).auth().get("client_token");
		String accessor = (String) vault.get("auth/token/lookup-self", token).data().get("accessor");
		String leaseId = vault.get("database/creds/" + VaultTarget.ROLE, token).leaseId();
		simulator.clearJournal();
		vault.put("sys/leases/renew", token, Map.of("lease_id", leaseId));
		vault.put("sys/leases/renew", token, Map.of("lease_id", leaseId));
		assertThat(simulator.journal((entry) -> leaseId.equals(entry.leaseId()))).hasSize(2).allSatisfy((entry) -> {
			assertThat(entry.method()).isEqualTo("PUT");
			assertThat(entry.path()).isEqualTo("sys/leases/renew");
			assertThat(entry.accessor()).isEqualTo(accessor);
			assertThat(entry.status()).isEqualTo(200);
		});
	}

}
