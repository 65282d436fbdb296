package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vault's GitHub auth method ({@code auth/github/login}) as the simulator answers it,
 * after {@code builtin/credential/github/path_login.go} of hashicorp/vault: the token is
 * checked with GitHub's API (an unknown one: go-github's 401 error, a user outside the
 * organization: {@code user is not part of required org}, both as errors, so 500); the
 * token carries {@code username} and {@code org}. Simulator only: a real Vault asks
 * GitHub.
 */
class GitHubAuthConformanceTests {

	private static VaultSimulator simulator;

	private static VaultTarget vault;

	@BeforeAll
	static void start() {
		simulator = VaultSimulator.builder()
			.gitHubUser("ghp_member", "octocat", true, Duration.ofMinutes(20), Duration.ofHours(1))
			.gitHubUser("ghp_outsider", "stranger", false, Duration.ofMinutes(20), Duration.ofHours(1))
			.build()
			.start();
		vault = VaultTarget.of(simulator);
	}

	@AfterAll
	static void stop() {
		simulator.close();
	}

	@Test
	void aMembersTokenLogsIn() throws Exception {
		VaultTarget.Response login = vault.post("auth/github/login", null, Map.of("token", "ghp_member"));
		assertThat(login.status()).isEqualTo(200);
		assertThat(login.json()).containsEntry("mount_type", "github");
		assertThat(login.auth()).containsEntry("lease_duration", 1200)
			.containsEntry("metadata", Map.of("username", "octocat", "org", "leasekeeper"));
		String token = (String) login.auth().get("client_token");
		assertThat(vault.get("auth/token/lookup-self", token).data()).containsEntry("display_name", "github-octocat");
	}

	@Test
	void anUnknownTokenAndAnOutsiderAreRefused() throws Exception {
		VaultTarget.Response unknown = vault.post("auth/github/login", null, Map.of("token", "ghp_made_up"));
		assertThat(unknown.status()).isEqualTo(500);
		assertThat(unknown.errors().get(0)).contains("401 Bad credentials");
		VaultTarget.Response outsider = vault.post("auth/github/login", null, Map.of("token", "ghp_outsider"));
		assertThat(outsider.status()).isEqualTo(500);
		assertThat(outsider.errors().get(0)).contains("user is not part of required org");
	}

}
