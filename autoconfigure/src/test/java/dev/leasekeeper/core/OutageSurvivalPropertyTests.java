package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviour (d), as a property over seeded random cases: an outage shorter than
 * {@code (1 − renewAt) × ttl − attemptTimeout − expiryBuffer} loses no lease, wherever it
 * starts. Each case draws the TTL, {@code renewAt}, the first-renewal spread, the
 * outage's start and its length; a failing case prints its seed, which
 * {@code -Dleasekeeper.property.seed=<seed>} replays alone.
 */
class OutageSurvivalPropertyTests {

	private static final int CASES = Integer.getInteger("leasekeeper.property.cases", 500);

	@Test
	void anOutageShorterThanTheMarginLosesNoLease() {
		Long replay = Long.getLong("leasekeeper.property.seed");
		long first = (replay != null) ? replay : 1;
		long last = (replay != null) ? replay : CASES;
		for (long seed = first; seed <= last; seed++) {
			Case drawn = Case.draw(seed, false);
			assertThat(run(drawn)).as("lost leases for %s (replay with -Dleasekeeper.property.seed=%d)", drawn, seed)
				.isZero();
		}
	}

	@Test
	void anOutageLongerThanTheWholeWindowLosesTheLease() {
		// the same harness must be able to see a loss, or the property above proves
		// nothing
		for (long seed = 1; seed <= 50; seed++) {
			Case drawn = Case.draw(seed, true);
			assertThat(run(drawn)).as("lost leases for %s", drawn).isEqualTo(1);
		}
	}

	private static int run(Case drawn) {
		EngineFixture fixture = new EngineFixture();
		fixture.vault.role("r", drawn.ttl, Duration.ofHours(768));
		RenewalPolicy policy = RenewalPolicy.builder()
			.renewAt(drawn.renewAt)
			.firstRenewalSpread(drawn.spread)
			.jitter(drawn.jitter)
			.build();
		ManagedLease lease = fixture.started(fixture.secretLease("lease", "r")
			.policy(policy)
			.random(new SplittableRandom(drawn.seed))
			.reacquireOnLoss(false));
		fixture.advanceTo(EngineFixture.START.plus(drawn.outageStart));
		if (drawn.atRenewal) {
			// the worst start: the very instant the lease planned to renew
			fixture.advanceTo(lease.current().nextActionAt().minusNanos(1));
		}
		fixture.vault.down();
		fixture.advance(drawn.outageLength);
		fixture.vault.up();
		fixture.advance(drawn.ttl.multipliedBy(2));
		return (int) fixture.listener.count("lost");
	}

	private record Case(long seed, Duration ttl, double renewAt, double spread, double jitter, Duration outageStart,
			boolean atRenewal, Duration outageLength) {

		static Case draw(long seed, boolean longerThanWindow) {
			SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L);
			while (true) {
				Duration ttl = Duration.ofSeconds(random.nextLong(30, 24 * 3600));
				double renewAt = 0.3 + 0.6 * random.nextDouble();
				double spread = random.nextBoolean() ? 1.0 : random.nextDouble();
				double jitter = random.nextBoolean() ? 0 : RenewalPolicy.DEFAULT_JITTER * random.nextDouble();
				Duration margin = Duration.ofNanos((long) ((1 - renewAt) * ttl.toNanos()))
					.minus(RenewalPolicy.DEFAULT_ATTEMPT_TIMEOUT)
					.minus(RenewalPolicy.DEFAULT_EXPIRY_BUFFER);
				if (margin.isNegative() || margin.isZero()) {
					continue;
				}
				Duration start = Duration.ofNanos(random.nextLong(1, 3 * ttl.toNanos()));
				boolean atRenewal = random.nextBoolean();
				Duration length;
				if (longerThanWindow) {
					length = ttl.plusSeconds(1);
				}
				else if (random.nextBoolean()) {
					// just under the margin: only the attempt planned at the last instant
					// can save the lease
					long under = Math.min(margin.toNanos(), Duration.ofSeconds(20).toNanos());
					length = margin.minusNanos(random.nextLong(1, under + 1));
				}
				else {
					length = Duration.ofNanos(random.nextLong(0, margin.toNanos()));
				}
				return new Case(seed, ttl, renewAt, spread, jitter, start, atRenewal, length);
			}
		}

	}

}
