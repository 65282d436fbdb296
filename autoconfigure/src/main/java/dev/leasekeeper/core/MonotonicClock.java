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

	/**
	 * Return the present as nanoseconds on this clock's scale (that of
	 * {@link System#nanoTime()}), without allocating.
	 * @return the present
	 */
	long nanos() {
		return System.nanoTime();
	}

	/**
	 * Return an instant of this clock as nanoseconds on the scale of {@link #nanos()},
	 * saturated: an instant centuries away is {@link Long#MIN_VALUE} or
	 * {@link Long#MAX_VALUE}.
	 * @param at the instant
	 * @return its nanoseconds
	 */
	long nanosAt(Instant at) {
		long seconds = at.getEpochSecond() - this.origin.getEpochSecond();
		if (seconds > 9_000_000_000L) {
			return Long.MAX_VALUE;
		}
		if (seconds < -9_000_000_000L) {
			return Long.MIN_VALUE;
		}
		long offset = seconds * 1_000_000_000L + (at.getNano() - this.origin.getNano());
		long nanos = this.originNanos + offset;
		// overflow of the sum (System.nanoTime() may be anywhere in the range)
		if (offset > 0 && nanos < this.originNanos) {
			return Long.MAX_VALUE;
		}
		if (offset < 0 && nanos > this.originNanos) {
			return Long.MIN_VALUE;
		}
		return nanos;
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
