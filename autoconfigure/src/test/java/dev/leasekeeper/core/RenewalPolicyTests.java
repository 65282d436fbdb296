package dev.leasekeeper.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RenewalPolicyTests {

	@Test
	void defaultsAreThoseTheDesignGives() {
		RenewalPolicy policy = RenewalPolicy.defaults();
		assertThat(policy.renewAt()).isEqualTo(0.67);
		assertThat(policy.firstRenewalSpread()).isEqualTo(1.0);
		assertThat(policy.jitter()).isEqualTo(0.01);
		assertThat(policy.expiryBuffer()).isEqualTo(Duration.ofSeconds(2));
		assertThat(policy.attemptTimeout()).isEqualTo(Duration.ofSeconds(10));
		assertThat(policy.retryInitialInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(policy.retryMultiplier()).isEqualTo(2.0);
		assertThat(policy.retryMaxInterval()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void renewAtOutsideTheOpenUnitIntervalIsRejectedNamingTheSetting() {
		for (double value : new double[] { 0, 1, -0.1, 1.5, Double.NaN }) {
			assertThatExceptionOfType(InvalidPolicyException.class)
				.isThrownBy(() -> RenewalPolicy.builder().renewAt(value).build())
				.satisfies((ex) -> {
					assertThat(ex.getSetting()).isEqualTo("renew-at");
					assertThat(ex.getValue()).isEqualTo(String.valueOf(value));
					assertThat(ex.getAllowed()).contains("greater than 0 and less than 1");
				});
		}
	}

	@Test
	void spreadAndJitterOutOfRangeAreRejected() {
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().firstRenewalSpread(1.1).build())
			.withMessageContaining("first-renewal-spread");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().jitter(0.6).build())
			.withMessageContaining("jitter")
			.withMessageContaining("between 0 and 0.5");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().renewAt(0.3).jitter(0.4).build())
			.withMessageContaining("less than renew-at");
	}

	@Test
	void negativeOrZeroDurationsAreRejected() {
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().expiryBuffer(Duration.ofSeconds(-1)).build())
			.withMessageContaining("expiry-buffer");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().attemptTimeout(Duration.ZERO).build())
			.withMessageContaining("attempt-timeout");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().retryInitialInterval(Duration.ofMillis(-5)).build())
			.withMessageContaining("retry.initial-interval");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().retryMaxInterval(Duration.ofMillis(500)).build())
			.withMessageContaining("retry.max-interval");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().retryMultiplier(0.5).build())
			.withMessageContaining("retry.multiplier");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RenewalPolicy.builder().retryJitter(1).build())
			.withMessageContaining("retry.jitter");
	}

}
