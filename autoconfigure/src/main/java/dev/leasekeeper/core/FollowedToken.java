package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseInput.TokenNews;

/**
 * A token somebody else owns (the application's own session manager logs in and renews
 * it), followed so that the secret leases obtained under it know when it ends: each
 * lease's effective expiry is the earlier of its own and the token's, and a new login
 * moves them to the new token at instants spread over the time the old one has left. It
 * never renews, revokes or logs in: whoever owns the token tells it what happened.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class FollowedToken {

	private static final Log logger = LogFactory.getLog(FollowedToken.class);

	private final String name;

	private final LeaseScheduler scheduler;

	private final RenewalSchedule schedule;

	private final Callable<@Nullable Duration> lookup;

	private final List<ManagedLease> dependents = new CopyOnWriteArrayList<>();

	/* read and written on the scheduling thread */

	private int generation = 1;

	/** Whether a login or a look-up told of the present token yet. */
	private boolean known;

	private @Nullable Instant expiry;

	private @Nullable Instant validUntil;

	/**
	 * Create a new followed token.
	 * @param name its name in log lines
	 * @param scheduler the engine's scheduler
	 * @param policy the policy whose expiry buffer it is held to
	 * @param lookup asks the store how long the token has left ({@code null}: it does not
	 * expire), throwing a {@link LeaseSourceException} when it cannot tell or the token
	 * is not valid
	 */
	public FollowedToken(String name, LeaseScheduler scheduler, RenewalPolicy policy,
			Callable<@Nullable Duration> lookup) {
		this.name = name;
		this.scheduler = scheduler;
		this.schedule = new RenewalSchedule(policy);
		this.lookup = lookup;
	}

	/**
	 * Learn the present token's time left from the store: once, before the leases start.
	 */
	public void lookUp() {
		this.scheduler.call(this.lookup, (ttl, failure) -> {
			if (failure != null) {
				logger.warn("Token '" + this.name + "': its time left could not be looked up ("
						+ Mailbox.classify(failure).getErrorClass() + "); its leases go by their own expiry");
				return;
			}
			this.known = true;
			apply(this.generation, ttl, TokenNews.RENEWED);
		});
	}

	/**
	 * The owner logged in: a new token, to which the leases obtained under the previous
	 * one move (the first login heard of, before any look-up, is the present token).
	 * @param ttl its time to live, or {@code null} if it does not expire
	 */
	public void loggedIn(@Nullable Duration ttl) {
		this.scheduler.schedule(Instant.MIN, () -> {
			if (!this.known) {
				// the first login of the session: the token every lease was obtained
				// under
				this.known = true;
				apply(this.generation, ttl, TokenNews.RENEWED);
				return;
			}
			logger.info("Token '" + this.name + "': its owner logged in again; the leases obtained under the "
					+ "previous token move to the new one before it ends");
			apply(this.generation + 1, ttl, TokenNews.REPLACED);
		});
	}

	/**
	 * The owner renewed the token.
	 * @param ttl its time to live from now, or {@code null} if it does not expire
	 */
	public void renewed(@Nullable Duration ttl) {
		this.scheduler.schedule(Instant.MIN, () -> apply(this.generation, ttl, TokenNews.RENEWED));
	}

	/**
	 * The owner cannot renew the token any further (it reached its maximum TTL, or is
	 * about to): it logs in again when a request next needs a token, so {@code login} is
	 * run now, on a worker, and the login it makes moves the leases to the new token
	 * before the old one ends.
	 * @param login makes the owner log in (asks it for its session token)
	 */
	public void expiring(Runnable login) {
		logger.info("Token '" + this.name + "' cannot be renewed further: its owner logs in again");
		this.scheduler.call(() -> {
			login.run();
			return Boolean.TRUE;
		}, (result, failure) -> {
			if (failure != null) {
				logger.warn("Token '" + this.name + "': its owner could not log in ("
						+ Mailbox.classify(failure).getErrorClass() + "); the leases obtained under the old token "
						+ "end with it");
			}
		});
	}

	private void apply(int generation, @Nullable Duration ttl, TokenNews news) {
		this.generation = generation;
		if (ttl == null || ttl.isZero() || ttl.isNegative()) {
			this.expiry = null;
			this.validUntil = null;
		}
		else {
			Instant now = this.scheduler.now();
			this.expiry = now.plus(ttl);
			this.validUntil = this.expiry.minus(this.schedule.budget(ttl).expiryBuffer());
		}
		tell(news);
	}

	private void tell(TokenNews news) {
		for (ManagedLease dependent : this.dependents) {
			dependent.mailbox()
				.deliver(new LeaseInput.TokenChanged(news, this.generation, this.expiry, this.validUntil));
		}
	}

	void attach(ManagedLease dependent) {
		this.dependents.add(dependent);
	}

	LeaseMachine.TokenView view() {
		return new LeaseMachine.TokenView(this.generation, true, this.expiry, this.validUntil);
	}

	/**
	 * A dependent was refused (403): the store tells whether the token is still valid.
	 */
	void verify(int generation) {
		this.scheduler.call(this.lookup, (ttl, failure) -> {
			if (generation != this.generation) {
				return;
			}
			if (failure == null) {
				apply(generation, ttl, TokenNews.CONFIRMED);
			}
			else if (Mailbox.classify(failure).getKind() == LeaseSourceException.Kind.UNAUTHORIZED
					|| Mailbox.classify(failure).isCredentialGone()) {
				tell(TokenNews.LOST);
			}
		});
	}

	@Override
	public String toString() {
		return "FollowedToken '" + this.name + "' generation " + this.generation;
	}

}
