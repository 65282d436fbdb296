package dev.leasekeeper.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that reads {@link System#nanoTime()} from a wall-clock origin taken once: its
 * instants read like wall-clock time but never jump when the system clock is set. It
 * stands still while the machine is suspended ({@link SuspendDetector} notices).
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class MonotonicClock extends Clock {

	private final Instant origin;

	private final long originNanos;

	/**
	 * Create a new clock whose origin is the present wall-clock instant.
	 */
	public MonotonicClock() {
		this.origin = Instant.now();
		this.originNanos = System.nanoTime();
	}

	@Override
	public Instant instant() {
		return this.origin.plusNanos(System.nanoTime() - this.originNanos);
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		throw new UnsupportedOperationException("MonotonicClock is always UTC");
	}

}
