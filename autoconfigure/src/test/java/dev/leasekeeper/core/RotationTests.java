package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviours (e) and (f): refusals and ceilings lead to a replacement before the old
 * grant expires, handed to the synchronous consumers before the old one is released.
 */
class RotationTests {

	private static final Duration HOUR = Duration.ofHours(1);

	private final EngineFixture fixture = new EngineFixture();

	private final RenewalPolicy noSpread = RenewalPolicy.builder().firstRenewalSpread(0).build();

	@Test
	void aLeaseRevokedOutOfBandIsNeverRetriedButObtainedAgainAtOnce() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		String first = lease.current().leaseId();
		this.fixture.vault.revokeOutOfBand(first);
		Instant renewal = lease.current().nextActionAt();
		this.fixture.advanceTo(renewal);
		assertThat(this.fixture.vault.count("renew")).isEqualTo(1);
		assertThat(this.fixture.vault.journal()).filteredOn((call) -> call.operation().equals("acquire"))
			.extracting(InMemoryVault.Call::at)
			.containsExactly(EngineFixture.START, renewal);
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(lease.current().leaseId()).isNotEqualTo(first);
		assertThat(this.fixture.listener.events).containsSubsequence("failed 1 PERMANENT", "lost 1 REVOKED",
				"rotated 1->2 LOST");
		this.fixture.advance(HOUR);
		assertThat(this.fixture.vault.count("renew")).isEqualTo(2);
	}

	@Test
	void aRefusalOfAStillValidGrantRotatesAtOnceKeepingTheOldGrantInUseUntilTheNewOneIsTaken() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		String first = lease.current().leaseId();
		this.fixture.vault.failNext(1,
				LeaseSourceException.permanent("past-max-ttl", "past the max TTL, cannot renew"));
		this.fixture.advanceTo(lease.current().nextActionAt());
		assertThat(this.fixture.vault.count("renew")).isEqualTo(1);
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(this.fixture.listener.events).containsSubsequence("failed 1 PERMANENT", "ceiling 1",
				"rotated 1->2 REFUSED");
		assertThat(this.fixture.listener.events).noneMatch((event) -> event.startsWith("lost"));
		assertThat(this.fixture.listener.released).containsExactly(first);
		assertThat(this.fixture.vault.isAlive(first)).isFalse();
	}

	@Test
	void theCeilingIsReportedOnceOnTheRenewalThatRevealsItAndTheLeaseRotatesAtThatAnswer() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(3));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		String first = lease.current().leaseId();
		int renewalsOfFirst = 0;
		Instant oldExpiry = null;
		while (lease.current().generation() == 1) {
			oldExpiry = lease.current().expiry();
			this.fixture.advanceTo(lease.current().nextActionAt());
			renewalsOfFirst++;
		}
		// generation 1's ceiling was not known in advance: the capped answer revealed it,
		// and the next generation was obtained at once, at that renewal's instant
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(this.fixture.now()).isBefore(oldExpiry);
		assertThat(this.fixture.listener.count("ceiling 1")).isEqualTo(1);
		assertThat(this.fixture.listener.renewals).hasSize(renewalsOfFirst);
		assertThat(this.fixture.listener.renewals.get(renewalsOfFirst - 1).capped()).isTrue();
		assertThat(this.fixture.listener.renewals.get(renewalsOfFirst - 2).capped()).isFalse();
		assertThat(lease.current().obtainedAt())
			.isEqualTo(this.fixture.listener.renewals.get(renewalsOfFirst - 1).lease().obtainedAt());
		assertThat(this.fixture.listener.events).containsSubsequence("ceiling 1", "rotated 1->2 CEILING");
		// released only after the consumers took the new grant; revoked before it expires
		assertThat(this.fixture.listener.accepted).hasSize(2);
		assertThat(this.fixture.listener.released).containsExactly(first);
		Instant expiryOfFirst = oldExpiry;
		this.fixture.advanceTo(expiryOfFirst);
		assertThat(this.fixture.vault.journal()).filteredOn((call) -> call.operation().equals("revoke"))
			.singleElement()
			.satisfies((call) -> {
				assertThat(call.target()).isEqualTo(first);
				assertThat(call.at()).isBefore(expiryOfFirst);
			});
	}

	@Test
	void aLaterGenerationRotatesInItsOwnRenewalSlotKeepingAFullRenewalsOutageBudget() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(3));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders"));
		List<Instant> expiriesBefore = new ArrayList<>();
		List<Instant> rotations = new ArrayList<>();
		while (lease.current().generation() < 5) {
			int generation = lease.current().generation();
			Instant expiry = lease.current().expiry();
			this.fixture.advanceTo(lease.current().nextActionAt());
			if (lease.current().generation() > generation && generation > 1) {
				expiriesBefore.add(expiry);
				rotations.add(this.fixture.now());
			}
		}
		// only generation 1 was renewed into its ceiling: the later ones were predicted
		assertThat(this.fixture.listener.renewals).filteredOn(LeaseRenewal::capped).hasSize(1);
		assertThat(this.fixture.listener.count("ceiling")).isEqualTo(4);
		assertThat(rotations).hasSize(3);
		for (int i = 0; i < rotations.size(); i++) {
			// the rotation took a renewal's place: the old grant had an ordinary
			// renewal's
			// share of its TTL left (the window after renew-at, less the jitter)
			Duration left = Duration.between(rotations.get(i), expiriesBefore.get(i));
			assertThat(left).isGreaterThanOrEqualTo(Duration.ofMinutes(15));
		}
		// every generation lives as close to its ceiling as a renewal's cadence allows
		assertThat(Duration.between(EngineFixture.START, this.fixture.now())).isGreaterThan(Duration.ofHours(8));
	}

	@Test
	void withTheMaxTtlDeclaredTheFirstGenerationTooRotatesInItsOwnSlotAndNoRenewalComesBackCapped() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(3));
		ManagedLease lease = this.fixture
			.started(this.fixture.secretLease("orders", "orders").maxTtl(Duration.ofHours(3)));
		List<Instant> expiriesBefore = new ArrayList<>();
		List<Instant> rotations = new ArrayList<>();
		while (lease.current().generation() < 3) {
			int generation = lease.current().generation();
			Instant expiry = lease.current().expiry();
			this.fixture.advanceTo(lease.current().nextActionAt());
			if (lease.current().generation() > generation) {
				expiriesBefore.add(expiry);
				rotations.add(this.fixture.now());
			}
		}
		assertThat(this.fixture.listener.renewals).noneMatch(LeaseRenewal::capped);
		assertThat(this.fixture.listener.count("ceiling")).isEqualTo(2);
		assertThat(this.fixture.listener.events).contains("rotated 1->2 CEILING");
		for (int i = 0; i < rotations.size(); i++) {
			// generation 1 too: a renewal's share of its TTL left at the rotation
			assertThat(Duration.between(rotations.get(i), expiriesBefore.get(i)))
				.isGreaterThanOrEqualTo(Duration.ofMinutes(15));
		}
	}

	@Test
	void aDeclaredMaxTtlLongerThanTheRealOneYieldsToTheCappedAnswer() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(3));
		ManagedLease lease = this.fixture
			.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread).maxTtl(Duration.ofHours(24)));
		while (lease.current().generation() < 3) {
			this.fixture.advanceTo(lease.current().nextActionAt());
		}
		// the capped answer revealed the real ceiling once; generation 2 was predicted
		assertThat(this.fixture.listener.renewals).filteredOn(LeaseRenewal::capped).hasSize(1);
		assertThat(this.fixture.listener.events).containsSubsequence("rotated 1->2 CEILING", "rotated 2->3 CEILING");
		assertThat(this.fixture.listener.events).noneMatch((event) -> event.startsWith("lost"));
	}

	/**
	 * A max TTL learnt is checked in the ceiling slot every eighth generation (renewed
	 * there instead of rotated): unchanged, the capped answer rotates the lease at that
	 * instant; raised by an operator since, the answer is not capped, and from then on
	 * each generation lives to the new max TTL instead of rotating at the old one until a
	 * restart.
	 */
	@Test
	void aMaxTtlLearntIsCheckedInItsSlotEveryEighthGenerationAndARaisedOneIsFollowed() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(3));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		List<Instant> starts = new ArrayList<>();
		starts.add(this.fixture.now());
		while (lease.current().generation() < 9) {
			advanceRecordingGenerations(lease, starts);
		}
		// generation 1 revealed the ceiling; generation 8 checked it: capped, rotated
		// then
		assertThat(this.fixture.listener.renewals).filteredOn(LeaseRenewal::capped)
			.extracting((renewal) -> renewal.lease().generation())
			.containsExactly(1, 8);
		assertThat(this.fixture.listener.events).containsSubsequence("rotated 7->8 CEILING", "ceiling 8",
				"rotated 8->9 CEILING");
		assertThat(this.fixture.listener.events).noneMatch((event) -> event.startsWith("lost"));
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(12));
		while (lease.current().generation() < 18) {
			advanceRecordingGenerations(lease, starts);
		}
		// generations 9 to 15 rotate at the max TTL learnt; generation 16's check finds
		// it raised: it lives to its capped answer, and generation 17 to its slot
		assertThat(Duration.between(starts.get(9), starts.get(10))).isLessThan(Duration.ofHours(3));
		assertThat(Duration.between(starts.get(15), starts.get(16))).isGreaterThan(Duration.ofHours(11));
		assertThat(Duration.between(starts.get(16), starts.get(17))).isGreaterThan(Duration.ofHours(10));
		assertThat(this.fixture.listener.renewals).filteredOn(LeaseRenewal::capped)
			.extracting((renewal) -> renewal.lease().generation())
			.containsExactly(1, 8, 16);
		assertThat(this.fixture.listener.events).noneMatch((event) -> event.startsWith("lost"));
	}

	private void advanceRecordingGenerations(ManagedLease lease, List<Instant> starts) {
		int generation = lease.current().generation();
		this.fixture.advanceTo(lease.current().nextActionAt());
		if (lease.current().generation() > generation) {
			starts.add(this.fixture.now());
		}
	}

	@Test
	void withNotifyTheCeilingIsReportedOncePerGenerationAndRenewalsGoOn() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(3));
		ManagedLease lease = this.fixture.started(
				this.fixture.secretLease("orders", "orders").policy(this.noSpread).onCeiling(CeilingAction.NOTIFY));
		this.fixture.advance(Duration.ofMinutes(175));
		assertThat(this.fixture.listener.renewals.stream().filter(LeaseRenewal::capped).count()).isGreaterThan(1);
		assertThat(this.fixture.listener.count("ceiling")).isEqualTo(1);
		assertThat(this.fixture.listener.count("rotated")).isZero();
		assertThat(lease.current().generation()).isEqualTo(1);
	}

	@Test
	void aShortNormalTtlIsNotACeiling() {
		this.fixture.vault.role("orders", Duration.ofSeconds(10), Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders"));
		this.fixture.advance(Duration.ofMinutes(10));
		assertThat(this.fixture.listener.renewals).hasSizeGreaterThan(50);
		assertThat(this.fixture.listener.count("ceiling")).isZero();
		assertThat(lease.current().generation()).isEqualTo(1);
	}

	@Test
	void aNonRenewableGrantIsReplacedBeforeItExpires() {
		this.fixture.vault.nonRenewableRole("orders", HOUR);
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		assertThat(lease.current().state()).isEqualTo(LeaseState.CEILING);
		assertThat(this.fixture.listener.count("ceiling 1")).isEqualTo(1);
		this.fixture.advance(Duration.ofMinutes(50));
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(this.fixture.listener.events).contains("rotated 1->2 CEILING");
		assertThat(this.fixture.vault.count("renew")).isZero();
	}

	@Test
	void aRejectedReplacementLeavesTheOldGrantInUseAndIsRevoked() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		String first = lease.current().leaseId();
		this.fixture.listener.rejectNext = new IllegalStateException("new credential cannot log in");
		this.fixture.listener.rejections = 1;
		lease.rotateNow();
		this.fixture.scheduler.runDue();
		assertThat(lease.current().generation()).isEqualTo(1);
		assertThat(lease.current().leaseId()).isEqualTo(first);
		assertThat(lease.requireValidFor(Duration.ofMinutes(30)).leaseId()).isEqualTo(first);
		String rejected = this.fixture.vault.journal()
			.stream()
			.filter((call) -> call.operation().equals("revoke"))
			.findFirst()
			.orElseThrow()
			.target();
		assertThat(rejected).isNotEqualTo(first);
		assertThat(this.fixture.vault.isAlive(rejected)).isFalse();
		assertThat(this.fixture.listener.events).contains("rejected 1");
		assertThat(this.fixture.listener.released).isEmpty();
		this.fixture.advance(Duration.ofSeconds(2));
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(this.fixture.listener.released).containsExactly(first);
	}

	@Test
	void aLeaseThatCannotBeObtainedAgainIsReportedLostOnceWhileItKeepsTrying() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		this.fixture.vault.revokeOutOfBand(lease.current().leaseId());
		this.fixture.vault.failNext(1000, LeaseSourceException.permanent("unknown-role", "unknown role: orders"));
		this.fixture.advance(HOUR);
		assertThat(this.fixture.vault.count("acquire")).isGreaterThan(10);
		assertThat(lease.current().state()).isEqualTo(LeaseState.LOST);
		assertThat(this.fixture.listener.count("lost")).isEqualTo(1);
		this.fixture.vault.failNext(0, LeaseSourceException.permanent("unknown-role", "unknown role: orders"));
		this.fixture.advance(Duration.ofMinutes(1));
		assertThat(lease.current().generation()).isEqualTo(2);
	}

	@Test
	void aFleetStartedTogetherRotatesAtItsSpreadRenewalInstantsNotTogether() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(3));
		List<ManagedLease> leases = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			ManagedLease lease = this.fixture.secretLease("lease-" + i, "orders").build();
			lease.start();
			leases.add(lease);
		}
		this.fixture.advance(Duration.ofMinutes(178));
		assertThat(leases).allSatisfy((lease) -> assertThat(lease.current().generation()).isEqualTo(2));
		List<Instant> rotations = this.fixture.vault.journal()
			.stream()
			.filter((call) -> call.operation().equals("acquire") && call.at().isAfter(EngineFixture.START))
			.map(InMemoryVault.Call::at)
			.sorted()
			.toList();
		assertThat(rotations).hasSize(200);
		long perMinuteMax = rotations.stream()
			.collect(java.util.stream.Collectors.groupingBy((at) -> at.getEpochSecond() / 60,
					java.util.stream.Collectors.counting()))
			.values()
			.stream()
			.mapToLong(Long::longValue)
			.max()
			.orElseThrow();
		Duration span = Duration.between(rotations.get(0), rotations.get(rotations.size() - 1));
		assertThat(span).isGreaterThan(Duration.ofMinutes(10));
		assertThat(perMinuteMax).isLessThan(30);
	}

	@Test
	void aGrantTakenOverLateInItsLifeTeachesNoCeilingAndTheNextGenerationsLiveToTheirOwn() throws Exception {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(3));
		LeaseSource vault = this.fixture.vault.secrets("orders", () -> null);
		// another instance (the group's last leader) obtained the lease and renewed it
		// until 50 min before its ceiling
		Grant earlier = vault.acquire();
		for (int i = 0; i < 3; i++) {
			this.fixture.advance(Duration.ofMinutes(40));
			vault.renew(earlier, null);
		}
		this.fixture.advance(Duration.ofMinutes(10));
		Instant expiry = EngineFixture.START.plus(Duration.ofHours(3));
		LeaseSource adopting = new LeaseSource() {

			private boolean adopted;

			@Override
			public Grant acquire() throws LeaseSourceException {
				if (this.adopted) {
					return vault.acquire();
				}
				// what a new leader does: the published grant, with what is left of it
				this.adopted = true;
				Instant now = RotationTests.this.fixture.now();
				return new Grant(earlier.leaseId(), Duration.between(now, expiry), true, earlier.data(), List.of(),
						now);
			}

			@Override
			public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
				return vault.renew(current, increment);
			}

			@Override
			public void revoke(Grant current) throws LeaseSourceException {
				vault.revoke(current);
			}

		};
		ManagedLease lease = this.fixture.started(ManagedLease.builder("orders", adopting, this.fixture.scheduler)
			.listener(this.fixture.listener)
			.random(new java.util.SplittableRandom(7))
			.adoptsFirstGrant(true));
		Instant end = this.fixture.now().plus(Duration.ofHours(24));
		while (this.fixture.now().isBefore(end)) {
			this.fixture.advanceTo(lease.current().nextActionAt());
		}
		// the adopted grant rotated at its capped answer; generation 2 revealed the real
		// max TTL (3 h) and every later one lived close to it: learnt from the adopted
		// grant (50 min "from its start") every generation rotated at its first renewal,
		// 38 generations in these 24 h; generation 8 checked the max TTL in its slot
		assertThat(this.fixture.listener.renewals).filteredOn(LeaseRenewal::capped)
			.extracting((renewal) -> renewal.lease().generation())
			.containsExactly(1, 2, 8);
		assertThat(lease.current().generation()).isBetween(9, 11);
		assertThat(this.fixture.listener.events).noneMatch((event) -> event.startsWith("lost"));
	}

}
