package dev.leasekeeper.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * One lease: obtains a grant, renews it on its {@link RenewalSchedule}, retries transient
 * failures until its validity ends, rotates to a replacement at the ceiling or after a
 * refusal, and revokes what it holds when stopped.
 * <p>
 * A façade over four small parts: the {@link LeaseMachine} decides (a pure transition
 * table), the {@link Mailbox} runs one lease's inputs and effects on the
 * {@link LeaseScheduler}'s scheduling thread (one operation in flight, one timer), the
 * {@link Notifier} tells the listeners and hands new grants to the synchronous consumers,
 * and the {@link TokenBinding} ties a secret lease to the token it was obtained under
 * (only a lease that has a token or dependents has one). Reads ({@link #current()},
 * {@link #requireValidFor(Duration)}) see an immutable snapshot from any thread.
 * <p>
 * States: {@code NEW → ACQUIRING → ACTIVE ⇄ RENEWING}; {@code RETRYING} while renewals
 * fail with time left; {@code CEILING → ROTATING → ACTIVE} (generation + 1);
 * {@code EXPIRED} when the validity ended unconfirmed (also while one authoritative
 * attempt checks a lease whose timer fired too late); {@code LOST} when refused;
 * {@code REVOKED} once stopped.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class ManagedLease implements LeaseRenewer {

	/** It carries nothing: one for every request. */
	private static final LeaseInput RENEW_REQUESTED = new LeaseInput.RenewRequested();

	private final Mailbox mailbox;

	private ManagedLease(Builder builder) {
		LeaseMachine machine = LeaseMachine.of(builder.policy, builder.increment, builder.onCeiling,
				builder.reacquireOnLoss, builder.revokeReplaced, builder.token != null || builder.followedToken != null,
				builder.refreshCause, builder.maxTtl, builder.adoptsFirstGrant, builder.random);
		Notifier notifier = new Notifier(builder.source.describe(), builder.onCeiling, builder.listeners);
		this.mailbox = new Mailbox(builder.name, builder.source, builder.scheduler, machine, notifier, builder.token,
				builder.followedToken);
		this.mailbox.attach(this);
	}

	/**
	 * Return a builder for a lease.
	 * @param name the lease's name
	 * @param source where its grants come from
	 * @param scheduler the scheduler it runs on
	 * @return the builder
	 */
	public static Builder builder(String name, LeaseSource source, LeaseScheduler scheduler) {
		return new Builder(name, source, scheduler);
	}

	@Override
	public String getName() {
		return this.mailbox.name();
	}

	@Override
	public String describe() {
		return this.mailbox.source().describe();
	}

	@Override
	public LeaseSnapshot current() {
		return this.mailbox.snapshot();
	}

	@Override
	public LeaseSnapshot requireValidFor(Duration duration) {
		LeaseSnapshot current = current();
		if (!current.isValidFor(this.mailbox.scheduler().now(), duration)) {
			throw new LeaseExpiredException(current,
					"Lease '" + getName() + "' (generation " + current.generation() + ", state " + current.state()
							+ ") cannot vouch for its credential for " + duration
							+ ((current.validUntil() != null) ? "; valid until " + current.validUntil() : ""));
		}
		return current;
	}

	/**
	 * Return the token lease this lease depends on.
	 * @return the token lease, or {@code null}
	 */
	public @Nullable ManagedLease getToken() {
		return this.mailbox.token();
	}

	/**
	 * Return the error class of the last failed attempt since the last success, for
	 * start-up diagnostics.
	 * @return the error class, or {@code null} if no attempt failed since then
	 */
	public @Nullable String getLastErrorClass() {
		return this.mailbox.lastErrorClass();
	}

	/**
	 * Return a future that completes with the first grant (without its credential fields:
	 * read {@link #current()} for those), or exceptionally with the failure if the store
	 * refused it permanently. Asked for once the first grant came, it is a completed
	 * future of the lease as it is now (the first grant's is not kept).
	 * @return the future
	 */
	public CompletableFuture<LeaseSnapshot> firstGrant() {
		return this.mailbox.firstGrant();
	}

	/**
	 * Start the lease: obtain its first grant (once its token, if any, holds one).
	 */
	public void start() {
		this.mailbox.post(new LeaseInput.Start());
	}

	@Override
	public void renewNow() {
		this.mailbox.post(RENEW_REQUESTED);
	}

	@Override
	public void rotateNow(RotationCause cause) {
		Assert.notNull(cause, "'cause' must not be null");
		this.mailbox.post(new LeaseInput.RotateRequested(cause));
	}

	/**
	 * Tell the lease that time passed which the engine's clock did not see (a suspend):
	 * its grant is verified with Vault at once.
	 * @param gap how much time passed unseen
	 */
	void clockJumped(Duration gap) {
		this.mailbox.post(new LeaseInput.ClockJumped(gap));
	}

	/**
	 * Stop the lease: cancel what is scheduled and, if asked, revoke the grant held.
	 * @param revoke whether to revoke the grant
	 * @return a future that completes when the lease is stopped (a failed revocation is
	 * logged, never thrown)
	 */
	public CompletableFuture<Void> stop(boolean revoke) {
		this.mailbox.post(new LeaseInput.Stop(revoke));
		return this.mailbox.stopped();
	}

	Mailbox mailbox() {
		return this.mailbox;
	}

	/**
	 * Builds a {@link ManagedLease}.
	 */
	public static final class Builder {

		private final String name;

		private final LeaseSource source;

		private final LeaseScheduler scheduler;

		private RenewalPolicy policy = RenewalPolicy.defaults();

		private @Nullable Duration increment;

		private CeilingAction onCeiling = CeilingAction.ROTATE;

		private boolean reacquireOnLoss = true;

		private boolean revokeReplaced = true;

		private final List<LeaseListener> listeners = new ArrayList<>();

		/** Shared by default: each thread that draws from it has its own state. */
		private RandomGenerator random = ThreadLocalRandom.current();

		private @Nullable ManagedLease token;

		private @Nullable FollowedToken followedToken;

		private RotationCause refreshCause = RotationCause.STATIC_ROTATION;

		private @Nullable Duration maxTtl;

		private boolean adoptsFirstGrant;

		private Builder(String name, LeaseSource source, LeaseScheduler scheduler) {
			Assert.hasText(name, "'name' must not be empty");
			Assert.notNull(source, "'source' must not be null");
			Assert.notNull(scheduler, "'scheduler' must not be null");
			this.name = name;
			this.source = source;
			this.scheduler = scheduler;
		}

		/**
		 * Set the renewal policy.
		 * @param policy the policy
		 * @return this builder
		 */
		public Builder policy(RenewalPolicy policy) {
			Assert.notNull(policy, "'policy' must not be null");
			this.policy = policy;
			return this;
		}

		/**
		 * Set the increment asked for at each renewal.
		 * @param increment the increment, or {@code null} for the store's default
		 * @return this builder
		 */
		public Builder increment(@Nullable Duration increment) {
			this.increment = increment;
			return this;
		}

		/**
		 * Declare the lease's max TTL (its role's), when the application knows it: each
		 * generation's ceiling is then predicted from the start, and the first generation
		 * too rotates in the slot of the renewal that would come back capped instead of
		 * at the capped answer. A ceiling the store reveals earlier wins; a max TTL
		 * declared shorter than the real one makes every generation rotate early.
		 * @param maxTtl the max TTL, or {@code null} to learn it from the first ceiling
		 * @return this builder
		 */
		public Builder maxTtl(@Nullable Duration maxTtl) {
			Assert.isTrue(maxTtl == null || (!maxTtl.isNegative() && !maxTtl.isZero()), "'maxTtl' must be positive");
			this.maxTtl = maxTtl;
			return this;
		}

		/**
		 * Say that the lease's first grant may be one somebody else obtained earlier (a
		 * fleet's new leader takes over the grant its group uses): its ceiling is then
		 * neither predicted from when it was obtained nor learnt from it, since its age
		 * is unknown; the first ceiling is met at the capped answer, and learnt from the
		 * next generation. Without this, a max TTL learnt from an old grant would be
		 * short by its age, and every later generation would rotate that much early.
		 * @param adoptsFirstGrant whether the first grant may be adopted
		 * @return this builder
		 */
		public Builder adoptsFirstGrant(boolean adoptsFirstGrant) {
			this.adoptsFirstGrant = adoptsFirstGrant;
			return this;
		}

		/**
		 * Set what the lease does at its ceiling.
		 * @param onCeiling the action
		 * @return this builder
		 */
		public Builder onCeiling(CeilingAction onCeiling) {
			Assert.notNull(onCeiling, "'onCeiling' must not be null");
			this.onCeiling = onCeiling;
			return this;
		}

		/**
		 * Set whether a lost lease is obtained again.
		 * @param reacquireOnLoss whether to obtain it again
		 * @return this builder
		 */
		public Builder reacquireOnLoss(boolean reacquireOnLoss) {
			this.reacquireOnLoss = reacquireOnLoss;
			return this;
		}

		/**
		 * Set whether a replaced grant is revoked once its consumers have drained.
		 * @param revokeReplaced whether to revoke it
		 * @return this builder
		 */
		public Builder revokeReplaced(boolean revokeReplaced) {
			this.revokeReplaced = revokeReplaced;
			return this;
		}

		/**
		 * Add a listener; listeners are called in the order they were added.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(LeaseListener listener) {
			Assert.notNull(listener, "'listener' must not be null");
			this.listeners.add(listener);
			return this;
		}

		/**
		 * Set the source of randomness (seed it for reproducible runs).
		 * @param random the source
		 * @return this builder
		 */
		public Builder random(RandomGenerator random) {
			Assert.notNull(random, "'random' must not be null");
			this.random = random;
			return this;
		}

		/**
		 * Set the token lease this lease is obtained under.
		 * @param token the token lease
		 * @return this builder
		 */
		public Builder token(@Nullable ManagedLease token) {
			this.token = token;
			return this;
		}

		/**
		 * Set the token this secret lease is obtained under when somebody else owns it
		 * (the application's own session manager): the lease ends no later than it, and
		 * moves to the next one after a login. Ignored when {@link #token} is set.
		 * @param followedToken the followed token, or {@code null}
		 * @return this builder
		 */
		public Builder followedToken(@Nullable FollowedToken followedToken) {
			this.followedToken = followedToken;
			return this;
		}

		/**
		 * Set the cause a new credential read at a grant's {@link Grant#refreshAfter()
		 * refreshAfter} is published with: a static role's rotation
		 * ({@link RotationCause#STATIC_ROTATION}, the default), or a fleet's leader's new
		 * grant ({@link RotationCause#PUBLISHED}).
		 * @param refreshCause the cause
		 * @return this builder
		 */
		public Builder refreshCause(RotationCause refreshCause) {
			Assert.notNull(refreshCause, "'refreshCause' must not be null");
			this.refreshCause = refreshCause;
			return this;
		}

		/**
		 * Build the lease; it does nothing until {@link ManagedLease#start()}.
		 * @return the lease
		 */
		public ManagedLease build() {
			return new ManagedLease(this);
		}

	}

}
