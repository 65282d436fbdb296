package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;

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
	void retryIsNeverPlannedAfterTheLastInstantAnAttemptCanFinishBeforeTheDeadline() {
		SplittableRandom random = new SplittableRandom(3);
		Instant deadline = T0.plus(Duration.ofSeconds(60));
		Instant latestStart = deadline.minus(RenewalPolicy.DEFAULT_ATTEMPT_TIMEOUT);
		BackOffExecution backOff = this.schedule.startBackOff();
		Instant now = T0;
		Optional<Instant> next;
		int attempts = 0;
		while ((next = this.schedule.retry(backOff, random, now, deadline)).isPresent()) {
			assertThat(next.get()).isAfter(now).isBeforeOrEqualTo(latestStart);
			now = next.get();
			attempts++;
		}
		assertThat(now).isEqualTo(latestStart);
		assertThat(attempts).isBetween(4, 7);
	}

	@Test
	void retryDelaysGrowExponentiallyWithJitter() {
		SplittableRandom random = new SplittableRandom(5);
		BackOffExecution backOff = this.schedule.startBackOff();
		double[] expected = { 1, 2, 4, 8, 16, 30, 30 };
		for (double base : expected) {
			Instant next = this.schedule.retry(backOff, random, T0, null).orElseThrow();
			double delay = Duration.between(T0, next).toMillis() / 1000.0;
			assertThat(delay).isBetween(base * 0.8, base * 1.2);
		}
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
	void aShortWindowIsNotACeilingButAConfigurationToWarnAbout() {
		Grant short10s = Grant.of("l", Duration.ofSeconds(10), true, T0);
		assertThat(this.schedule.showsCeiling(short10s, Duration.ofSeconds(10), null)).isFalse();
		assertThat(this.schedule.windowTooShort(short10s)).isTrue();
		assertThat(this.schedule.windowTooShort(Grant.of("l", HOUR, true, T0))).isFalse();
	}

	@Test
	void rotationIsDrawnBetweenNowAndTheRenewalPointOfTheLastWindow() {
		SplittableRandom random = new SplittableRandom(9);
		Instant now = T0.plus(Duration.ofMinutes(1));
		Grant capped = Grant.of("l", Duration.ofMinutes(30), true, T0);
		Instant latest = T0.plus(seconds(0.67 * 1800));
		Instant earliestSeen = latest;
		Instant latestSeen = now;
		for (int i = 0; i < 2000; i++) {
			Instant at = this.schedule.rotation(capped, random, now);
			assertThat(at).isBetween(now, latest);
			earliestSeen = at.isBefore(earliestSeen) ? at : earliestSeen;
			latestSeen = at.isAfter(latestSeen) ? at : latestSeen;
		}
		assertThat(Duration.between(now, earliestSeen)).isLessThan(Duration.ofSeconds(30));
		assertThat(Duration.between(latestSeen, latest)).isLessThan(Duration.ofSeconds(30));
	}

	@Test
	void attemptTimeoutIsNeverLongerThanTheTimeLeft() {
		assertThat(this.schedule.attemptTimeout(T0, T0.plusSeconds(3))).isEqualTo(Duration.ofSeconds(3));
		assertThat(this.schedule.attemptTimeout(T0, T0.plusSeconds(30))).isEqualTo(Duration.ofSeconds(10));
		assertThat(this.schedule.attemptTimeout(T0, null)).isEqualTo(Duration.ofSeconds(10));
	}

	private static Duration seconds(double seconds) {
		return Duration.ofNanos((long) (seconds * 1e9));
	}

}
