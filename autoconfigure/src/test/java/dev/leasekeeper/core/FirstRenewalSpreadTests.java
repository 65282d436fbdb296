package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviour (a): a fleet that obtained its grants at the same instant renews spread out,
 * and stays spread.
 */
class FirstRenewalSpreadTests {

	private static final Duration TTL = Duration.ofHours(1);

	private static final int LEASES = 1000;

	@Test
	void thousandLeasesObtainedTogetherSpreadTheirFirstRenewalsUniformlyOverTheRenewalPeriod() {
		EngineFixture fixture = new EngineFixture();
		fixture.vault.role("orders", TTL, Duration.ofHours(768));
		List<ManagedLease> leases = startFleet(fixture, RenewalPolicy.defaults());
		Instant obtained = EngineFixture.START;
		double renewAt = RenewalPolicy.DEFAULT_RENEW_AT;
		int[] slices = new int[100];
		for (ManagedLease lease : leases) {
			double fraction = fraction(obtained, lease.current().nextActionAt());
			assertThat(fraction).isBetween(0.0, renewAt);
			slices[Math.min(99, (int) (fraction / renewAt * 100))]++;
		}
		for (int count : slices) {
			assertThat(count).isLessThanOrEqualTo(LEASES * 3 / 100).isPositive();
		}
	}

	@Test
	void fleetKeepsItsPhasesSpreadOverTheNextFiftyRenewals() {
		EngineFixture fixture = new EngineFixture();
		fixture.vault.role("orders", TTL, Duration.ofHours(768));
		startFleet(fixture, RenewalPolicy.defaults());
		Duration period = Duration.ofSeconds((long) (0.665 * 3600));
		fixture.advance(period.multipliedBy(51));
		List<Instant> renewals = new ArrayList<>();
		fixture.vault.journal()
			.stream()
			.filter((call) -> call.operation().equals("renew"))
			.forEach((call) -> renewals.add(call.at()));
		assertThat(renewals.size()).isGreaterThanOrEqualTo(LEASES * 50);
		for (int round : new int[] { 2, 25, 50 }) {
			Instant from = EngineFixture.START.plus(period.multipliedBy(round));
			Instant to = from.plus(period);
			int[] slices = new int[100];
			int inWindow = 0;
			for (Instant at : renewals) {
				if (!at.isBefore(from) && at.isBefore(to)) {
					slices[(int) (Duration.between(from, at).toNanos() * 100 / period.toNanos())]++;
					inWindow++;
				}
			}
			assertThat(inWindow).isBetween(LEASES * 95 / 100, LEASES * 105 / 100);
			for (int count : slices) {
				assertThat(count).as("renewals in one 1%% slice of round %d", round)
					.isLessThanOrEqualTo(inWindow * 3 / 100);
			}
		}
	}

	@Test
	void withoutSpreadTheFirstRenewalIsAtRenewAtLessAtMostTheJitter() {
		EngineFixture fixture = new EngineFixture();
		fixture.vault.role("orders", TTL, Duration.ofHours(768));
		List<ManagedLease> leases = startFleet(fixture, RenewalPolicy.builder().firstRenewalSpread(0).build());
		for (ManagedLease lease : leases) {
			assertThat(fraction(EngineFixture.START, lease.current().nextActionAt())).isBetween(0.66, 0.67);
		}
	}

	@Test
	void eachLeaseHoldsExactlyOneQueuedTaskBetweenRenewals() {
		EngineFixture fixture = new EngineFixture();
		fixture.vault.role("orders", TTL, Duration.ofHours(768));
		startFleet(fixture, RenewalPolicy.defaults());
		fixture.advance(Duration.ofHours(3));
		assertThat(fixture.scheduler.pendingTasks()).isEqualTo(LEASES);
	}

	private static List<ManagedLease> startFleet(EngineFixture fixture, RenewalPolicy policy) {
		List<ManagedLease> leases = new ArrayList<>();
		for (int i = 0; i < LEASES; i++) {
			ManagedLease lease = fixture.secretLease("lease-" + i, "orders").policy(policy).build();
			lease.start();
			leases.add(lease);
		}
		fixture.scheduler.runDue();
		return leases;
	}

	private static double fraction(Instant obtained, Instant at) {
		return Duration.between(obtained, at).toNanos() / (double) TTL.toNanos();
	}

}
