package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.random.RandomGenerator;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Notices time the engine did not see pass. The engine schedules on a monotonic clock,
 * which stands still while the machine is suspended or its VM paused, while Vault's
 * leases keep ageing: every {@code period}, it compares how far the wall clock and the
 * engine's clock moved. When the wall clock moved further by more than {@code threshold},
 * every lease verifies its grant at once (one renewal each, spread over a second): those
 * Vault ended are reported lost and obtained again. The engine keeps its monotonic clock:
 * a grant's instants are measured from the answer that gave it, so those obtained after
 * the suspend are right, and those from before it are the ones verified. A wall clock
 * stepped backwards changes nothing. A clock step forwards (NTP) looks the same as a
 * suspend, and costs one verification per lease.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class SuspendDetector {

	private static final Log logger = LogFactory.getLog(SuspendDetector.class);

	/** How often the clocks are compared by default. */
	public static final Duration PERIOD = Duration.ofSeconds(2);

	/**
	 * How much unseen time counts as a suspend by default: far more than the two clocks
	 * drift apart in a period, far less than any lease's budget.
	 */
	public static final Duration THRESHOLD = Duration.ofSeconds(1);

	/** How far apart the verifications after a suspend are spread. */
	static final Duration SPREAD = Duration.ofSeconds(1);

	private final LeaseScheduler scheduler;

	private final List<ManagedLease> leases;

	private final Duration period;

	private final Duration threshold;

	private final RandomGenerator random;

	private @Nullable Instant lastEngine;

	private @Nullable Instant lastWall;

	private @Nullable Cancellable next;

	private volatile boolean running;

	/**
	 * Create a new detector.
	 * @param scheduler the engine's scheduler, with its wall clock
	 * @param leases the leases to verify after a suspend
	 * @param period how often to compare the clocks
	 * @param threshold how much further the wall clock must move to count as a suspend
	 * @param random spreads the verifications
	 */
	public SuspendDetector(LeaseScheduler scheduler, List<ManagedLease> leases, Duration period, Duration threshold,
			RandomGenerator random) {
		Assert.notNull(scheduler, "'scheduler' must not be null");
		Assert.isTrue(!period.isNegative() && !period.isZero(), "'period' must be positive");
		Assert.isTrue(!threshold.isNegative() && !threshold.isZero(), "'threshold' must be positive");
		this.scheduler = scheduler;
		this.leases = List.copyOf(leases);
		this.period = period;
		this.threshold = threshold;
		this.random = random;
	}

	/**
	 * Create a detector for every lease of a registry that compares the clocks every
	 * {@link #PERIOD} and counts more than {@link #THRESHOLD} of unseen time as a
	 * suspend.
	 * @param scheduler the engine's scheduler, with its wall clock
	 * @param registry the leases
	 * @param random spreads the verifications
	 */
	public SuspendDetector(LeaseScheduler scheduler, LeaseRegistry registry, RandomGenerator random) {
		this(scheduler, registry.leases(), PERIOD, THRESHOLD, random);
	}

	/** Start comparing the clocks. */
	public void start() {
		this.running = true;
		this.scheduler.schedule(this.scheduler.now(), this::check);
	}

	/** Stop comparing the clocks. */
	public void stop() {
		this.running = false;
		Cancellable pending = this.next;
		if (pending != null) {
			pending.cancel();
		}
	}

	private void check() {
		if (!this.running) {
			return;
		}
		Instant engine = this.scheduler.now();
		Instant wall = this.scheduler.wallClock().instant();
		if (this.lastEngine != null && this.lastWall != null) {
			Duration unseen = Duration.between(this.lastWall, wall).minus(Duration.between(this.lastEngine, engine));
			if (unseen.compareTo(this.threshold) > 0) {
				suspended(unseen);
			}
		}
		this.lastEngine = engine;
		this.lastWall = wall;
		this.next = this.scheduler.schedule(engine.plus(this.period), this::check);
	}

	private void suspended(Duration unseen) {
		logger.warn("The wall clock moved " + unseen + " further than Leasekeeper's monotonic clock (a suspend, a"
				+ " paused VM or a clock step): verifying every lease with Vault now");
		Instant now = this.scheduler.now();
		for (ManagedLease lease : this.leases) {
			Instant at = now.plusNanos(this.random.nextLong(SPREAD.toNanos()));
			this.scheduler.schedule(at, () -> lease.clockJumped(unseen));
		}
	}

}
