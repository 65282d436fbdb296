package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;

/**
 * A virtual clock, an in-memory Vault and helpers to build leases on them.
 */
final class EngineFixture {

	static final Instant START = Instant.parse("2026-01-05T09:00:00.250Z");

	final VirtualTimeLeaseScheduler scheduler = new VirtualTimeLeaseScheduler(START);

	final InMemoryVault vault = new InMemoryVault(this.scheduler::now);

	final RecordingListener listener = new RecordingListener();

	private long seed = 42;

	ManagedLease.Builder secretLease(String name, String role) {
		return ManagedLease.builder(name, this.vault.secrets(role, () -> null), this.scheduler)
			.listener(this.listener)
			.random(new SplittableRandom(this.seed++));
	}

	ManagedLease started(ManagedLease.Builder builder) {
		ManagedLease lease = builder.build();
		lease.start();
		this.scheduler.runDue();
		return lease;
	}

	void advance(Duration duration) {
		this.scheduler.advanceBy(duration);
	}

	void advanceTo(Instant instant) {
		this.scheduler.advanceTo(instant);
	}

	Instant now() {
		return this.scheduler.now();
	}

}
