package dev.leasekeeper.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.LeaseSourceException;

/**
 * An instance's view of a lease its group shares: each "acquisition" reads the grant the
 * group's leader published, never Vault's lease itself. The grant is valid until the
 * published expiry and is read again (its {@link Grant#refreshAfter() refreshAfter}) at
 * an instant of this instance's own, drawn over the read spread once the leader's next
 * renewal or rotation is due and its grace has passed: one read per renewal period, the
 * fleet's reads spread. A read that shows the leader late tells the {@link GroupMember},
 * which tries for the leadership at a deadline of its own; nothing is published yet, or
 * the publication has expired, is a transient failure (retried until this instance's
 * grant runs out). Nothing is renewed or revoked from here.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class GroupLeaseSource implements LeaseSource {

	/** How late a leader may publish before it is taken for gone. */
	static final Duration GRACE = Duration.ofSeconds(2);

	private static final Duration LEAST_DELAY = Duration.ofMillis(500);

	private final GroupStore store;

	private final GroupMember member;

	private final Clock engineClock;

	private final Clock wallClock;

	private final Duration readSpread;

	private final RandomGenerator random;

	public GroupLeaseSource(GroupStore store, GroupMember member, Clock engineClock, Clock wallClock,
			Duration readSpread, RandomGenerator random) {
		this.store = store;
		this.member = member;
		this.engineClock = engineClock;
		this.wallClock = wallClock;
		this.readSpread = readSpread;
		this.random = random;
	}

	@Override
	public Grant acquire() throws LeaseSourceException {
		Instant sent = this.engineClock.instant();
		Publication published = this.store.read();
		Instant now = this.wallClock.instant();
		this.member.observed(published, now);
		if (published == null) {
			throw LeaseSourceException.transientFailure("not-published",
					"read " + this.store.path() + ": the group's leader has not published a grant yet", null);
		}
		Duration left = Duration.between(now, published.expireAt());
		if (left.compareTo(Duration.ofSeconds(1)) <= 0) {
			throw LeaseSourceException.transientFailure("publication-expired", "read " + this.store.path()
					+ ": the published grant expired at " + published.expireAt() + " (the group's leader is late)",
					null);
		}
		return new Grant(published.leaseId(), left, false, published.data(), List.of(), sent,
				nextRead(published, now, left));
	}

	/**
	 * When to read again: once the leader's next publication is due and its grace has
	 * passed, at a delay drawn over the read spread; for a late leader, after the
	 * takeover's window; always early enough in what is left to retry a failed read.
	 */
	private Duration nextRead(Publication published, Instant now, Duration left) {
		Duration latest = left.multipliedBy(2).dividedBy(3);
		Duration spread = Duration.ofNanos((long) (this.random.nextDouble() * this.readSpread.toNanos()));
		Duration delay;
		if (published.isOverdue(now, GRACE)) {
			delay = this.member.failoverWindow().plus(GRACE).plus(spread);
		}
		else {
			Duration due = Duration.between(now, published.refreshAt().plus(GRACE));
			delay = (due.isNegative() ? Duration.ZERO : due).plus(spread);
		}
		if (delay.compareTo(latest) > 0) {
			delay = latest;
		}
		return (delay.compareTo(LEAST_DELAY) < 0) ? LEAST_DELAY : delay;
	}

	@Override
	public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
		// read again, never renewed: never called
		throw LeaseSourceException.permanent("not-renewable",
				"renew " + this.store.path() + ": a group's grant is read from its leader's publication");
	}

	@Override
	public void revoke(Grant current) {
		// the group's grant outlives this instance
	}

	@Override
	public boolean revokes() {
		return false;
	}

	@Override
	public String describe() {
		return this.store.path();
	}

}
