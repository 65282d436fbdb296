package dev.leasekeeper.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The simulator's clock: real time plus an offset a test can jump, so that a lease can be
 * taken to just before its max TTL without waiting.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class SimulatorClock extends Clock {

	private final Clock base;

	private final AtomicLong offsetNanos = new AtomicLong();

	/**
	 * Create a clock that follows the system clock.
	 */
	public SimulatorClock() {
		this(Clock.systemUTC());
	}

	/**
	 * Create a clock that follows {@code base}.
	 * @param base the clock to follow
	 */
	public SimulatorClock(Clock base) {
		this.base = base;
	}

	/**
	 * Jump the clock forward (or back, with a negative duration).
	 * @param duration how far to jump
	 */
	public void jump(Duration duration) {
		this.offsetNanos.addAndGet(duration.toNanos());
	}

	@Override
	public Instant instant() {
		return this.base.instant().plusNanos(this.offsetNanos.get());
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		throw new UnsupportedOperationException("SimulatorClock is always UTC");
	}

}
