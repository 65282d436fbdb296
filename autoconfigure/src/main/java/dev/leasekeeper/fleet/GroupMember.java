package dev.leasekeeper.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.random.RandomGenerator;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.util.Assert;

import dev.leasekeeper.core.Cancellable;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.LeaseSourceException;

/**
 * One instance's place in the group that shares a lease: a {@link Candidate} for Spring
 * Integration's {@link LockRegistryLeaderInitiator}, which elects the leader over the
 * application's {@link LockRegistry}. A follower does not contend for the lock all the
 * time: when a read of the publication shows the leader late, it draws a deadline of its
 * own over the failover window, reads the publication once more then, and only if it is
 * still late starts its initiator, so that a leader's death never brings every instance
 * to the lock, nor to Vault, at once; a follower that reads a fresh publication stops
 * trying. The leader runs a {@link GroupLeader}. A leader whose publication Vault refuses
 * (another leader wrote since) steps down; one that stops releases the lock.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class GroupMember implements Candidate {

	private static final Log logger = LogFactory.getLog(GroupMember.class);

	private final String role;

	private final String id;

	private final GroupStore store;

	private final LeaseScheduler scheduler;

	private final Duration failoverWindow;

	private final RandomGenerator random;

	private final LockRegistryLeaderInitiator initiator;

	private final ExecutorService work;

	private final Function<GroupMember, GroupLeader> leaders;

	private volatile boolean leading;

	private @Nullable GroupLeader leader;

	private boolean trying;

	private @Nullable Cancellable deadline;

	private boolean closed;

	private boolean electable;

	private boolean electionWanted;

	private volatile @Nullable Instant lastAttemptAt;

	private volatile @Nullable Instant lastDeadlineAt;

	/**
	 * Create a member.
	 * @param group the group's name
	 * @param lease the lease's name
	 * @param id this instance's id in the group
	 * @param store the group's publication of the lease
	 * @param locks where the leader's lock is kept
	 * @param lockTimeToLive how long the lock outlives a leader that stopped renewing it
	 * @param scheduler the engine's scheduler, for the deadlines
	 * @param failoverWindow how long after a late publication the takeover attempts are
	 * spread over
	 * @param random where the deadlines are drawn from
	 * @param leaders makes the leader's work when this member is elected
	 */
	public GroupMember(String group, String lease, String id, GroupStore store, LockRegistry<?> locks,
			Duration lockTimeToLive, LeaseScheduler scheduler, Duration failoverWindow, RandomGenerator random,
			Function<GroupMember, GroupLeader> leaders) {
		Assert.hasText(group, "'group' must not be empty");
		Assert.hasText(lease, "'lease' must not be empty");
		this.role = "leasekeeper/" + group + "/" + lease;
		this.id = id;
		this.store = store;
		this.scheduler = scheduler;
		this.failoverWindow = failoverWindow;
		this.random = random;
		this.leaders = leaders;
		this.work = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, "leasekeeper-fleet-" + lease);
			thread.setDaemon(true);
			return thread;
		});
		this.initiator = new LockRegistryLeaderInitiator(locks, this);
		// the leader renews its lock well within its time to live
		this.initiator.setHeartBeatMillis(Math.max(50, lockTimeToLive.toMillis() / 5));
		this.initiator.setBusyWaitMillis(Math.max(50, lockTimeToLive.toMillis() / 10));
		this.initiator.setAutoStartup(false);
	}

	@Override
	public String getRole() {
		return this.role;
	}

	@Override
	public String getId() {
		return this.id;
	}

	/**
	 * Return whether this instance leads its group for the lease now.
	 * @return whether it does
	 */
	public boolean isLeader() {
		return this.leading;
	}

	/**
	 * Return when this member last started trying for the leadership.
	 * @return the instant, by the wall clock, or {@code null} if it never tried
	 */
	public @Nullable Instant lastAttemptAt() {
		return this.lastAttemptAt;
	}

	/**
	 * Return the last deadline this member drew after it saw its leader late: when it
	 * read the publication again and, if still late, tried for the leadership.
	 * @return the instant, by the wall clock, or {@code null} if it never drew one
	 */
	public @Nullable Instant lastDeadlineAt() {
		return this.lastDeadlineAt;
	}

	Duration failoverWindow() {
		return this.failoverWindow;
	}

	@Override
	public void onGranted(Context context) {
		this.leading = true;
		logger.info("Leasekeeper: " + this.id + " leads " + this.role);
		this.work.execute(() -> {
			if (this.leading && this.leader == null) {
				GroupLeader started = this.leaders.apply(this);
				this.leader = started;
				started.start();
			}
		});
	}

	@Override
	public void onRevoked(Context context) {
		if (!this.leading) {
			return;
		}
		this.leading = false;
		logger.info("Leasekeeper: " + this.id + " no longer leads " + this.role);
		this.work.execute(() -> {
			GroupLeader stopped = this.leader;
			this.leader = null;
			if (stopped != null) {
				stopped.stop();
			}
		});
	}

	/**
	 * Hear what a read of the publication showed: nothing yet (try for the leadership
	 * now: there is nothing to renew, and the lock elects one), a late leader (try at a
	 * deadline drawn over the failover window), or a fresh one (stop trying).
	 * @param published the publication, or {@code null}
	 * @param now the present, by the wall clock
	 */
	synchronized void observed(@Nullable Publication published, Instant now) {
		if (this.closed || this.leading) {
			return;
		}
		if (published == null) {
			tryToLead();
		}
		else if (published.isOverdue(now, GroupLeaseSource.GRACE)) {
			if (!this.trying && this.deadline == null) {
				Duration left = Duration.between(now, published.expireAt());
				Duration window = (left.dividedBy(3).compareTo(this.failoverWindow) < 0) ? left.dividedBy(3)
						: this.failoverWindow;
				long delay = (window.isNegative() || window.isZero()) ? 0
						: (long) (this.random.nextDouble() * window.toNanos());
				this.lastDeadlineAt = now.plusNanos(delay);
				this.deadline = this.scheduler.schedule(this.scheduler.now().plusNanos(delay),
						() -> this.work.execute(this::deadlinePassed));
			}
		}
		else if (!published.leader().equals(this.id)) {
			stopTrying();
		}
	}

	/** At this follower's deadline: still late, try the lock; else nothing. */
	private void deadlinePassed() {
		synchronized (this) {
			this.deadline = null;
			if (this.closed || this.leading || this.trying) {
				return;
			}
		}
		try {
			Publication published = this.store.read();
			if (published != null && !published.isOverdue(java.time.Instant.now(), GroupLeaseSource.GRACE)) {
				return;
			}
		}
		catch (LeaseSourceException ex) {
			// Vault is not answering: the lock still decides who may act on it
			logger.debug("Leasekeeper: " + this.role + ": " + ex.getMessage());
		}
		tryToLead();
	}

	/**
	 * Let this member take part in elections: once the application's beans are made (its
	 * lock registry is one). A wish to lead from before is acted on now.
	 */
	public void open() {
		boolean wanted;
		synchronized (this) {
			this.electable = true;
			wanted = this.electionWanted;
		}
		if (wanted) {
			tryToLead();
		}
	}

	private synchronized void tryToLead() {
		if (this.closed || this.trying || this.leading) {
			return;
		}
		if (!this.electable) {
			this.electionWanted = true;
			return;
		}
		this.trying = true;
		this.lastAttemptAt = Instant.now();
		logger.info("Leasekeeper: " + this.id + " tries for the leadership of " + this.role);
		this.initiator.start();
	}

	private synchronized void stopTrying() {
		Cancellable pending = this.deadline;
		this.deadline = null;
		if (pending != null) {
			pending.cancel();
		}
		if (this.trying && !this.leading) {
			this.trying = false;
			this.initiator.stop();
		}
	}

	/**
	 * Step down: another leader published since this one last read (it lost its lock
	 * during a pause, say). The lock is released; this instance follows again.
	 * @param reason why
	 */
	void stepDown(String reason) {
		logger.warn("Leasekeeper: " + this.id + " steps down from " + this.role + ": " + reason);
		synchronized (this) {
			this.trying = false;
		}
		this.initiator.stop();
		// stopping the initiator revokes the leadership on its own thread
		onRevoked(this.initiator.getContext());
	}

	/**
	 * Leave the group: the leader releases its lock first, so that a follower can take
	 * over at once; the shared grant is not revoked.
	 */
	public void close() {
		synchronized (this) {
			this.closed = true;
			Cancellable pending = this.deadline;
			this.deadline = null;
			if (pending != null) {
				pending.cancel();
			}
		}
		this.initiator.stop();
		onRevoked(this.initiator.getContext());
		this.work.shutdown();
		try {
			this.work.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
