package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class RenewalScheduleTests {

	private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");

	private static final Duration HOUR = Duration.ofHours(1);

	private final RenewalSchedule schedule = new RenewalSchedule(RenewalPolicy.defaults());

	@Test
	void laterRenewalsFallAtRenewAtOfTheNewWindowAtMostJitterEarly() {
		SplittableRandom random = new SplittableRandom(1);
		Grant grant = Grant.of("l", HOUR, true, T0);
		for (int i = 0; i < 1000; i++) {
			Instant at = this.schedule.nextRenewal(grant, random);
			assertThat(at).isBetween(T0.plus(seconds(0.66 * 3600)), T0.plus(seconds(0.67 * 3600)));
		}
	}

	@Test
	void nextRenewalIsDerivedFromTheNewGrantNotTheOldExpiry() {
		SplittableRandom random = new SplittableRandom(1);
		Instant renewedAt = T0.plus(Duration.ofMinutes(40));
		Grant shorter = Grant.of("l", Duration.ofMinutes(10), true, renewedAt);
		Instant at = this.schedule.nextRenewal(shorter, random);
		assertThat(at).isBetween(renewedAt.plus(seconds(0.66 * 600)), renewedAt.plus(seconds(0.67 * 600)));
	}

	@Test
	void retriesGoOnUntilTheValidityEndsTheLastJustBeforeIt() {
		SplittableRandom random = new SplittableRandom(3);
		Instant validUntil = T0.plus(Duration.ofSeconds(60));
		// a tenth of the attempt timeout before the end, not a whole attempt timeout
		Instant last = validUntil.minusSeconds(1);
		Instant now = T0;
		Optional<Instant> next;
		int attempts = 0;
		while ((next = this.schedule.retry(attempts + 1, random, now, validUntil, HOUR)).isPresent()) {
			assertThat(next.get()).isAfter(now).isBeforeOrEqualTo(last);
			now = next.get();
			attempts++;
		}
		assertThat(now).isEqualTo(last);
		assertThat(attempts).isBetween(5, 8);
	}

	@Test
	void retryDelaysGrowExponentiallyWithJitterNeverBeyondTheLongestInterval() {
		SplittableRandom random = new SplittableRandom(5);
		double[] expected = { 1, 2, 4, 8, 16, 30, 30 };
		for (int failures = 1; failures <= expected.length; failures++) {
			double base = expected[failures - 1];
			Instant next = this.schedule.retry(failures, random, T0, null, HOUR).orElseThrow();
			double delay = Duration.between(T0, next).toMillis() / 1000.0;
			assertThat(delay).isBetween(base * 0.8, Math.min(base * 1.2, 30));
		}
	}

	@Test
	void theBudgetIsCappedByFractionsOfTheWindow() {
		RenewalSchedule.Budget sixSeconds = this.schedule.budget(Duration.ofSeconds(6));
		assertThat(sixSeconds.expiryBuffer()).isEqualTo(Duration.ofMillis(600));
		assertThat(sixSeconds.attemptTimeout()).isEqualTo(Duration.ofMillis(480));
		assertThat(sixSeconds.retryInitialInterval()).isEqualTo(Duration.ofMillis(300));
		assertThat(sixSeconds.retryMaxInterval()).isEqualTo(Duration.ofMillis(600));
		RenewalSchedule.Budget hour = this.schedule.budget(HOUR);
		assertThat(hour).isEqualTo(
				new RenewalSchedule.Budget(RenewalPolicy.DEFAULT_EXPIRY_BUFFER, RenewalPolicy.DEFAULT_ATTEMPT_TIMEOUT,
						RenewalPolicy.DEFAULT_RETRY_INITIAL_INTERVAL, RenewalPolicy.DEFAULT_RETRY_MAX_INTERVAL));
	}

	@Test
	void withDefaultsEveryWindowFromThreeSecondsRenewsAtRenewAtWithRoomForTwoAttemptsAndARetry() {
		for (long millis = 3000; millis <= 24 * 3600_000L; millis = millis * 11 / 10) {
			Duration window = Duration.ofMillis(millis);
			assertThat(this.schedule.renewFraction(window)).as("renewal fraction of %s", window)
				.isEqualTo(RenewalPolicy.DEFAULT_RENEW_AT);
			RenewalSchedule.Budget budget = this.schedule.budget(window);
			Duration after = Duration.ofNanos((long) (window.toNanos() * (1 - RenewalPolicy.DEFAULT_RENEW_AT)));
			Duration needed = budget.expiryBuffer()
				.plus(budget.attemptTimeout().multipliedBy(2))
				.plus(budget.retryInitialInterval());
			assertThat(needed).as("budget of %s", window).isLessThanOrEqualTo(after);
		}
	}

	@Test
	void aRenewAtThatLeavesNoRoomIsPlannedEarlier() {
		RenewalSchedule late = new RenewalSchedule(RenewalPolicy.builder().renewAt(0.95).build());
		assertThat(late.renewFraction(Duration.ofSeconds(6))).isCloseTo(1 - 0.31, within(1e-9));
		assertThat(late.renewFraction(Duration.ofDays(1))).isEqualTo(0.95);
	}

	@Test
	void ceilingIsAGrantShorterThanTheIncrementAskedFor() {
		assertThat(this.schedule.showsCeiling(Grant.of("l", Duration.ofMinutes(59), true, T0), HOUR, null)).isTrue();
		assertThat(this.schedule.showsCeiling(Grant.of("l", HOUR, true, T0), HOUR, null)).isFalse();
		// Vault takes the increment in whole seconds
		assertThat(this.schedule.showsCeiling(Grant.of("l", HOUR, true, T0), HOUR.plusMillis(900), null)).isFalse();
	}

	@Test
	void ceilingWithoutAnIncrementIsAGrantShorterThanThePreviousFullOne() {
		Grant shorter = Grant.of("l", Duration.ofMinutes(30), true, T0);
		assertThat(this.schedule.showsCeiling(shorter, null, HOUR)).isTrue();
		assertThat(this.schedule.showsCeiling(Grant.of("l", HOUR, true, T0), null, HOUR)).isFalse();
		assertThat(this.schedule.showsCeiling(shorter, null, null)).isFalse();
	}

	@Test
	void ceilingIsVaultsCappedWarning() {
		Grant capped = new Grant("l", HOUR, true, Map.of(),
				List.of("TTL of \"2h\" exceeded the effective max_ttl of \"1h\"; TTL value is capped accordingly"), T0);
		assertThat(this.schedule.showsCeiling(capped, null, null)).isTrue();
	}

	@Test
	void aShortWindowIsNotACeilingAndOnlyBelowThreeSecondsAWindowToWarnAbout() {
		Grant short10s = Grant.of("l", Duration.ofSeconds(10), true, T0);
		assertThat(this.schedule.showsCeiling(short10s, Duration.ofSeconds(10), null)).isFalse();
		assertThat(this.schedule.windowTooShort(Duration.ofSeconds(2))).isTrue();
		assertThat(this.schedule.windowTooShort(Duration.ofSeconds(3))).isFalse();
		assertThat(this.schedule.windowTooShort(Duration.ofSeconds(30))).isFalse();
	}

	@Test
	void attemptTimeoutIsNeverLongerThanTheTimeLeft() {
		assertThat(this.schedule.attemptTimeout(T0, T0.plusSeconds(3), HOUR)).isEqualTo(Duration.ofSeconds(3));
		assertThat(this.schedule.attemptTimeout(T0, T0.plusSeconds(30), HOUR)).isEqualTo(Duration.ofSeconds(10));
		assertThat(this.schedule.attemptTimeout(T0, null, null)).isEqualTo(Duration.ofSeconds(10));
		assertThat(this.schedule.attemptTimeout(T0, null, Duration.ofSeconds(6))).isEqualTo(Duration.ofMillis(480));
	}

	private static Duration seconds(double seconds) {
		return Duration.ofNanos((long) (seconds * 1e9));
	}

}
