package dev.leasekeeper.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.BitSet;

import dev.leasekeeper.core.VirtualTimeLeaseScheduler;

/**
 * One simulated fleet: a {@link FleetVault}, the virtual-time scheduler every instance
 * runs on, and which instances lost their lease.
 */
final class Fleet {

	static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

	final VirtualTimeLeaseScheduler scheduler = new VirtualTimeLeaseScheduler(ORIGIN);

	final FleetVault vault;

	final BitSet lost = new BitSet();

	Fleet(Duration ttl, Duration maxTtl, Duration horizon) {
		this.vault = new FleetVault(ttl, maxTtl, () -> this.scheduler.clock().instant(), ORIGIN, horizon);
	}

	Instant now() {
		return this.scheduler.clock().instant();
	}

	void at(Instant at, Runnable task) {
		this.scheduler.schedule(at, task);
	}

	void after(Duration delay, Runnable task) {
		this.scheduler.schedule(now().plus(delay), task);
	}

	static Duration seconds(double seconds) {
		return Duration.ofNanos((long) (seconds * 1e9));
	}

}
