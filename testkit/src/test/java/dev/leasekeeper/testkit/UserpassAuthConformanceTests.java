package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vault's userpass auth method ({@code auth/userpass/login/<username>}) as the simulator
 * answers it, after {@code builtin/credential/userpass/path_login.go} of hashicorp/vault:
 * the username is lower-cased; an unknown user and a wrong password both get 400
 * {@code invalid username or password}; the token carries the username in its metadata
 * and display name. Simulator only: a real Vault needs the user written first.
 */
class UserpassAuthConformanceTests {

	private static SimulatorClock clock;

	private static VaultSimulator simulator;

	private static VaultTarget vault;

	@BeforeAll
	static void start() {
		clock = new SimulatorClock();
		simulator = VaultSimulator.builder()
			.clock(clock)
			.user("orders", "orders-password", Duration.ofMinutes(20), Duration.ofHours(1))
			.build()
			.start();
		vault = VaultTarget.of(simulator);
	}

	@AfterAll
	static void stop() {
		simulator.close();
	}

	@Test
	void aUserLogsInUnderItsLowerCaseName() throws Exception {
		VaultTarget.Response login = vault.post("auth/userpass/login/Orders", null,
				Map.of("password", "orders-password"));
		assertThat(login.status()).isEqualTo(200);
		assertThat(login.json()).containsEntry("mount_type", "userpass");
		assertThat(login.auth()).containsEntry("lease_duration", 1200)
			.containsEntry("metadata", Map.of("username", "orders"));
		String token = (String) login.auth().get("client_token");
		assertThat(vault.get("auth/token/lookup-self", token).data()).containsEntry("display_name", "userpass-orders");
	}

	@Test
	void anUnknownUserAndAWrongPasswordGetTheSameAnswer() throws Exception {
		VaultTarget.Response wrong = vault.post("auth/userpass/login/orders", null, Map.of("password", "guess"));
		VaultTarget.Response unknown = vault.post("auth/userpass/login/billing", null,
				Map.of("password", "orders-password"));
		assertThat(wrong.status()).isEqualTo(400);
		assertThat(wrong.errors()).containsExactly("invalid username or password");
		assertThat(unknown.status()).isEqualTo(400);
		assertThat(unknown.errors()).isEqualTo(wrong.errors());
	}

	@Test
	void itsTokenRenewsUpToTheUsersMaxTtl() throws Exception {
		String token = (String) vault.post("auth/userpass/login/orders", null, Map.of("password", "orders-password"))
			.auth()
			.get("client_token");
		for (int i = 0; i < 2; i++) {
			clock.jump(Duration.ofMinutes(15));
			assertThat(vault.post("auth/token/renew-self", token, Map.of()).auth().get("lease_duration"))
				.isEqualTo(1200);
		}
		clock.jump(Duration.ofMinutes(15));
		// capped at what is left of the max TTL (the clock also runs in real time: 899 or
		// 900)
		assertThat(
				((Number) vault.post("auth/token/renew-self", token, Map.of()).auth().get("lease_duration")).intValue())
			.isBetween(899, 900);
	}

}
