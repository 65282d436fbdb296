package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Behaviours (b), (c) and (i): renewals planned from the new grant, retries within the
 * budget, and exact validity at the boundaries.
 */
class RenewalTests {

	private static final Duration HOUR = Duration.ofHours(1);

	private final EngineFixture fixture = new EngineFixture();

	private final RenewalPolicy noSpread = RenewalPolicy.builder().firstRenewalSpread(0).build();

	@Test
	void eachRenewalIsPlannedFromTheNewGrantsTtlAndObtainedAt() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		for (int i = 0; i < 5; i++) {
			Instant planned = lease.current().nextActionAt();
			this.fixture.advanceTo(planned);
			LeaseSnapshot renewed = lease.current();
			assertThat(renewed.obtainedAt()).isEqualTo(planned);
			assertThat(renewed.expiry()).isEqualTo(planned.plus(HOUR));
			assertThat(fraction(renewed.obtainedAt(), renewed.nextActionAt(), HOUR)).isBetween(0.66, 0.67);
		}
		assertThat(this.fixture.listener.renewals).hasSize(5);
		assertThat(this.fixture.vault.count("renew")).isEqualTo(5);
	}

	@Test
	void aGrantShorterThanRequestedMovesTheNextRenewalEarlier() {
		// max TTL 1h30m: the first renewal (at 40m12s) is granted only the 49m48s left
		this.fixture.vault.role("orders", HOUR, Duration.ofMinutes(90));
		ManagedLease lease = this.fixture.started(
				this.fixture.secretLease("orders", "orders").policy(this.noSpread).onCeiling(CeilingAction.NOTIFY));
		Instant oldExpiry = lease.current().expiry();
		this.fixture.advanceTo(lease.current().nextActionAt());
		LeaseSnapshot renewed = lease.current();
		assertThat(renewed.ttl()).isLessThan(HOUR);
		Instant next = renewed.nextActionAt();
		assertThat(fraction(renewed.obtainedAt(), next, renewed.ttl())).isBetween(0.66, 0.67);
		// never the old expiry plus a fixed interval
		assertThat(next).isBefore(oldExpiry.plus(HOUR.multipliedBy(67).dividedBy(100)).minus(Duration.ofMinutes(5)));
	}

	@Test
	void transientFailuresAreRetriedWithBackoffUntilJustBeforeTheValidityEnds() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture
			.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread).reacquireOnLoss(false));
		Instant deadline = EngineFixture.START.plus(HOUR).minus(RenewalPolicy.DEFAULT_EXPIRY_BUFFER);
		// the last attempt a tenth of the attempt timeout before the validity ends
		Instant latestStart = deadline.minus(RenewalPolicy.DEFAULT_ATTEMPT_TIMEOUT.dividedBy(10));
		Instant renewal = lease.current().nextActionAt();
		this.fixture.vault.down();
		this.fixture.advanceTo(renewal.plus(Duration.ofMinutes(1)));
		assertThat(lease.current().state()).isEqualTo(LeaseState.RETRYING);
		this.fixture.advance(HOUR);
		List<Instant> attempts = this.fixture.vault.journal()
			.stream()
			.filter((call) -> call.operation().equals("renew"))
			.map(InMemoryVault.Call::at)
			.toList();
		assertThat(attempts.get(0)).isEqualTo(renewal);
		for (int i = 1; i < attempts.size(); i++) {
			assertThat(attempts.get(i)).isAfter(attempts.get(i - 1)).isBeforeOrEqualTo(latestStart);
		}
		// 1 s, 2 s, 4 s, ... each ±20 %, up to 30 s
		Duration second = Duration.between(attempts.get(0), attempts.get(1));
		Duration third = Duration.between(attempts.get(1), attempts.get(2));
		assertThat(second).isBetween(Duration.ofMillis(800), Duration.ofMillis(1200));
		assertThat(third).isBetween(Duration.ofMillis(1600), Duration.ofMillis(2400));
		assertThat(attempts.get(attempts.size() - 1)).isEqualTo(latestStart);
		assertThat(lease.current().state()).isEqualTo(LeaseState.EXPIRED);
		assertThat(this.fixture.listener.count("lost")).isEqualTo(1);
		assertThat(this.fixture.listener.events).contains("lost 1 EXPIRED");
	}

	@Test
	void anExpiredLeaseIsObtainedAgainOnceTheStoreIsBack() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		this.fixture.vault.down();
		this.fixture.advance(HOUR.plusMinutes(5));
		assertThat(lease.current().state()).isEqualTo(LeaseState.ACQUIRING);
		this.fixture.vault.up();
		this.fixture.advance(Duration.ofMinutes(1));
		assertThat(lease.current().state()).isEqualTo(LeaseState.ACTIVE);
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(this.fixture.listener.events).containsSubsequence("lost 1 EXPIRED", "rotated 1->2 LOST");
	}

	@Test
	void requireValidForIsExactAtTheBoundary() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture
			.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread).reacquireOnLoss(false));
		Instant validUntil = EngineFixture.START.plus(HOUR).minus(RenewalPolicy.DEFAULT_EXPIRY_BUFFER);
		assertThat(lease.current().validUntil()).isEqualTo(validUntil);
		Duration left = Duration.between(this.fixture.now(), validUntil);
		assertThat(lease.requireValidFor(left).generation()).isEqualTo(1);
		assertThatExceptionOfType(LeaseExpiredException.class)
			.isThrownBy(() -> lease.requireValidFor(left.plusNanos(1)))
			.withMessageContaining("'orders'")
			.withMessageContaining("generation 1");
		this.fixture.vault.down();
		this.fixture.advanceTo(validUntil.minusNanos(1));
		assertThat(lease.current().state()).isEqualTo(LeaseState.RETRYING);
		assertThat(lease.requireValidFor(Duration.ofNanos(1)).state()).isEqualTo(LeaseState.RETRYING);
		assertThatExceptionOfType(LeaseExpiredException.class)
			.isThrownBy(() -> lease.requireValidFor(Duration.ofNanos(2)));
		this.fixture.advanceTo(validUntil);
		assertThat(lease.current().state()).isEqualTo(LeaseState.EXPIRED);
		assertThat(lease.current().data()).isEmpty();
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(() -> lease.requireValidFor(Duration.ZERO))
			.withMessageContaining("EXPIRED");
	}

	@Test
	void snapshotStateIsExactAroundARenewal() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		Instant renewal = lease.current().nextActionAt();
		this.fixture.scheduler.setCallLatency(() -> Duration.ofMillis(300));
		this.fixture.advanceTo(renewal.minusNanos(1));
		assertThat(lease.current().state()).isEqualTo(LeaseState.ACTIVE);
		this.fixture.advanceTo(renewal);
		assertThat(lease.current().state()).isEqualTo(LeaseState.RENEWING);
		// a renewal in flight may come back capped up to a second earlier (Vault
		// truncates to seconds)
		assertThat(lease.current().expiry()).isEqualTo(EngineFixture.START.plus(HOUR).minusSeconds(1));
		this.fixture.advanceTo(renewal.plusMillis(300));
		assertThat(lease.current().state()).isEqualTo(LeaseState.ACTIVE);
		assertThat(lease.current().obtainedAt()).isEqualTo(renewal);
	}

	@Test
	void snapshotAndGrantNeverShowSecretValues() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders"));
		String password = (String) lease.current().data().get("password");
		assertThat(password).isNotEmpty();
		assertThat(lease.current().toString()).doesNotContain(password).contains("password=******");
		assertThat(this.fixture.listener.renewals).isEmpty();
	}

	static double fraction(Instant from, Instant at, Duration ttl) {
		return Duration.between(from, at).toNanos() / (double) ttl.toNanos();
	}

}
