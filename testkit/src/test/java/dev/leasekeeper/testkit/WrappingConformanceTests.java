package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Response wrapping ({@code sys/wrapping/unwrap}) as the simulator answers it, after
 * hashicorp/vault's {@code vault/wrapping.go} and {@code logical_system.go}: a wrapping
 * token unwraps once into the response it wraps (here a token's {@code auth}); used
 * again, expired or made up, it gets 400
 * {@code wrapping token is not valid or does not exist}.
 */
class WrappingConformanceTests {

	private static SimulatorClock clock;

	private static VaultSimulator simulator;

	private static VaultTarget vault;

	@BeforeAll
	static void start() {
		clock = new SimulatorClock();
		simulator = VaultSimulator.builder().clock(clock).build().start();
		vault = VaultTarget.of(simulator);
	}

	@AfterAll
	static void stop() {
		simulator.close();
	}

	@Test
	void aWrappingTokenUnwrapsOnceIntoTheTokenItWraps() throws Exception {
		String wrapping = simulator.wrappedToken(Duration.ofMinutes(5), Duration.ofMinutes(20),
				VaultSimulator.APPLICATION_POLICY);
		VaultTarget.Response unwrapped = vault.post("sys/wrapping/unwrap", wrapping, Map.of());
		assertThat(unwrapped.status()).isEqualTo(200);
		String token = (String) unwrapped.auth().get("client_token");
		assertThat(unwrapped.auth()).containsEntry("lease_duration", 1200);
		assertThat(vault.get("auth/token/lookup-self", token).status()).isEqualTo(200);
		VaultTarget.Response again = vault.post("sys/wrapping/unwrap", wrapping, Map.of());
		assertThat(again.status()).isEqualTo(400);
		assertThat(again.errors()).containsExactly("wrapping token is not valid or does not exist");
	}

	@Test
	void anExpiredWrappingTokenIsNotValid() throws Exception {
		String wrapping = simulator.wrappedToken(Duration.ofSeconds(30), Duration.ofMinutes(20),
				VaultSimulator.APPLICATION_POLICY);
		clock.jump(Duration.ofMinutes(1));
		try {
			assertThat(vault.post("sys/wrapping/unwrap", wrapping, Map.of()).errors())
				.containsExactly("wrapping token is not valid or does not exist");
		}
		finally {
			clock.jump(Duration.ofMinutes(-1));
		}
	}

}
