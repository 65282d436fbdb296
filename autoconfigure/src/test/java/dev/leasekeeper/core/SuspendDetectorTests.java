package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A suspend of the machine, in virtual time: the wall clock and Vault move on while the
 * engine's monotonic clock stands still. With every default and a 1 h lease.
 */
class SuspendDetectorTests {

	private static final Instant START = Instant.parse("2026-01-05T09:00:00.250Z");

	private final VirtualTimeLeaseScheduler scheduler = new VirtualTimeLeaseScheduler(START);

	/** Vault ages leases by the wall clock. */
	private final InMemoryVault vault = new InMemoryVault(this.scheduler::wallNow);

	private final RecordingListener listener = new RecordingListener();

	private ManagedLease lease() {
		this.vault.role("orders", Duration.ofHours(1), Duration.ofHours(24));
		ManagedLease lease = ManagedLease.builder("orders", this.vault.secrets("orders", () -> null), this.scheduler)
			.listener(this.listener)
			.random(new SplittableRandom(3))
			.build();
		lease.start();
		this.scheduler.runDue();
		return lease;
	}

	private SuspendDetector detector(ManagedLease lease) {
		SuspendDetector detector = new SuspendDetector(this.scheduler, List.of(lease), Duration.ofSeconds(2),
				Duration.ofSeconds(1), new SplittableRandom(5));
		detector.start();
		return detector;
	}

	@Test
	void aSuspendPastTheExpiryIsNoticedAndTheLeaseObtainedAgainWithinSeconds() {
		ManagedLease lease = lease();
		detector(lease);
		String first = lease.current().leaseId();
		this.scheduler.advanceBy(Duration.ofMinutes(10));
		// two hours asleep: Vault expired the lease, the engine saw nothing pass
		this.scheduler.suspend(Duration.ofHours(2));
		assertThat(this.vault.isAlive(first)).isFalse();
		// the next comparison of the clocks notices it; the verification follows
		this.scheduler.advanceBy(Duration.ofSeconds(3));
		this.scheduler.advanceBy(Duration.ofSeconds(3));
		assertThat(this.listener.count("lost")).isEqualTo(1);
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(this.vault.isAlive(lease.current().leaseId())).isTrue();
		// measured from the new answer, on the engine's own clock
		assertThat(lease.current().expiry()).isAfter(this.scheduler.now().plus(Duration.ofMinutes(59)));
	}

	@Test
	void aShortSuspendCostsOneRenewalAndLosesNothing() {
		ManagedLease lease = lease();
		detector(lease);
		this.scheduler.advanceBy(Duration.ofMinutes(10));
		long renewals = this.vault.count("renew");
		this.scheduler.suspend(Duration.ofMinutes(5));
		this.scheduler.advanceBy(Duration.ofSeconds(3));
		this.scheduler.advanceBy(Duration.ofSeconds(3));
		assertThat(this.vault.count("renew")).isEqualTo(renewals + 1);
		assertThat(this.listener.count("lost")).isZero();
		assertThat(lease.current().generation()).isEqualTo(1);
		assertThat(lease.current().expiry()).isAfter(this.scheduler.now().plus(Duration.ofMinutes(59)));
	}

	@Test
	void aWallClockSteppedBackwardsChangesNothing() {
		ManagedLease lease = lease();
		detector(lease);
		this.scheduler.advanceBy(Duration.ofMinutes(10));
		long renewals = this.vault.count("renew");
		Instant expiry = lease.current().expiry();
		this.scheduler.suspend(Duration.ofHours(-1));
		this.scheduler.advanceBy(Duration.ofSeconds(3));
		this.scheduler.advanceBy(Duration.ofSeconds(3));
		assertThat(this.vault.count("renew")).isEqualTo(renewals);
		assertThat(lease.current().expiry()).isEqualTo(expiry);
	}

	@Test
	void withoutTheDetectorASuspendGoesUnseen() {
		ManagedLease lease = lease();
		this.scheduler.advanceBy(Duration.ofMinutes(10));
		this.scheduler.suspend(Duration.ofHours(2));
		this.scheduler.advanceBy(Duration.ofSeconds(3));
		this.scheduler.advanceBy(Duration.ofSeconds(3));
		// the engine still vouches for a credential Vault ended: what the detector is for
		assertThat(this.listener.count("lost")).isZero();
		assertThat(this.vault.isAlive(lease.current().leaseId())).isFalse();
	}

}
