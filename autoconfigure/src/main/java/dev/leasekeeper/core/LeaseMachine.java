package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

/**
 * The decisions of one lease as a pure function {@code (state, input) → (state, effects)}
 * (randomness aside, drawn from a seeded source). Nothing here calls the store, a
 * listener or the clock: the {@link Mailbox} runs the effects and delivers their outcomes
 * back as inputs.
 * <p>
 * The table, by input:
 * <ul>
 * <li><b>timer</b>: with an operation in flight, its attempt deadline (a timeout) or the
 * end of the validity (the grant expires, an acquisition in flight goes on). Idle: the
 * planned renewal, acquisition or expiry. A timer that fires after the validity ended
 * makes the lease <em>uncertain</em> ({@code EXPIRED}, no event yet): one renewal at
 * once, kept if the store confirms, reported lost if not.</li>
 * <li><b>answer</b>: applied to the current state, never to a copy taken at send time. An
 * acquisition made under a token generation that is no longer current is revoked and made
 * again.</li>
 * <li><b>failure</b>: transient → retry until the validity ends; permanent → replace (or
 * lost, when the credential is gone); unauthorized → the token is asked to verify itself:
 * a valid token means the path is refused (that lease alone, long back-off).</li>
 * <li><b>token news</b>, <b>consumer</b> outcomes, <b>commands</b>, <b>stop</b>.</li>
 * </ul>
 * Invariant ({@link #violation}): a lease that holds an expiring grant always has a next
 * action armed.
 *
 * @author Leasekeeper
 */
final class LeaseMachine {

	private final Settings settings;

	private final RenewalSchedule schedule;

	private final RandomGenerator random;

	LeaseMachine(Settings settings, RandomGenerator random) {
		this.settings = settings;
		this.schedule = settings.schedule();
		this.random = random;
	}

	/**
	 * Machines by policy and settings, for the leases that draw from the shared random.
	 */
	private static final Map<List<Object>, LeaseMachine> shared = new ConcurrentHashMap<>();

	private static final int MOST_SHARED = 256;

	/**
	 * Return a machine for these settings: one shared by every lease with the same policy
	 * and settings when {@code random} is {@link ThreadLocalRandom}'s (a machine holds no
	 * lease's state), a machine of its own otherwise.
	 */
	static LeaseMachine of(RenewalPolicy policy, @Nullable Duration increment, CeilingAction onCeiling,
			boolean reacquireOnLoss, boolean revokeReplaced, boolean dependent, RotationCause refreshCause,
			@Nullable Duration maxTtl, boolean adoptsFirstGrant, RandomGenerator random) {
		if (random != ThreadLocalRandom.current()) {
			return new LeaseMachine(new Settings(new RenewalSchedule(policy), increment, onCeiling, reacquireOnLoss,
					revokeReplaced, dependent, refreshCause, maxTtl, adoptsFirstGrant), random);
		}
		List<Object> key = Arrays.asList(policy, increment, onCeiling, reacquireOnLoss, revokeReplaced, dependent,
				refreshCause, maxTtl, adoptsFirstGrant);
		LeaseMachine machine = shared.get(key);
		if (machine == null) {
			machine = new LeaseMachine(new Settings(new RenewalSchedule(policy), increment, onCeiling, reacquireOnLoss,
					revokeReplaced, dependent, refreshCause, maxTtl, adoptsFirstGrant), random);
			if (shared.size() < MOST_SHARED) {
				LeaseMachine first = shared.putIfAbsent(key, machine);
				machine = (first != null) ? first : machine;
			}
		}
		return machine;
	}

	Settings settings() {
		return this.settings;
	}

	/**
	 * Apply an input to a state.
	 * @param current the state, left unchanged
	 * @param input what happened
	 * @param now the present
	 * @param token the token this lease depends on as it is now, or {@code null}
	 * @return the next state and the effects to run, in order
	 */
	Transition apply(State current, LeaseInput input, Instant now, @Nullable TokenView token) {
		Transitions step = new Transitions(this.settings, this.random, current.copy(), now, token);
		step.on(input);
		step.followToken();
		step.capAtValidity();
		// the effects list is this transition's alone: handed over, not copied
		return new Transition(step.s, step.effects);
	}

	/**
	 * Return what is wrong with a state, or {@code null} if nothing is.
	 * @param state the state
	 * @return the violated invariant, or {@code null}
	 */
	static @Nullable String violation(State state) {
		if (state.state.holdsGrant() && state.held != null && state.held.expires() && state.timerAt() == null) {
			return "holds generation " + state.generation + " in state " + state.state + " with no next action";
		}
		return null;
	}

	/** An operation the lease has in flight: at most one at a time. */
	enum Op {

		ACQUIRE, RENEW, VERIFY, OFFER

	}

	/** What the idle timer does when it fires. */
	enum Next {

		RENEW, ACQUIRE, EXPIRE

	}

	/**
	 * The fixed settings of one lease; {@code maxTtl} is the max TTL the application
	 * declared, if any, which lets the first generation rotate in its own slot too;
	 * {@code adoptsFirstGrant} says that the first grant may have been issued before this
	 * lease obtained it (a fleet's new leader takes over the published grant), so that
	 * its start, hence its ceiling, is unknown.
	 */
	record Settings(RenewalSchedule schedule, @Nullable Duration increment, CeilingAction onCeiling,
			boolean reacquireOnLoss, boolean revokeReplaced, boolean dependent, RotationCause refreshCause,
			@Nullable Duration maxTtl, boolean adoptsFirstGrant) {

		Settings(RenewalSchedule schedule, @Nullable Duration increment, CeilingAction onCeiling,
				boolean reacquireOnLoss, boolean revokeReplaced, boolean dependent) {
			this(schedule, increment, onCeiling, reacquireOnLoss, revokeReplaced, dependent,
					RotationCause.STATIC_ROTATION, null, false);
		}

	}

	/** The token a lease depends on, as it is now. */
	record TokenView(int generation, boolean holds, @Nullable Instant expiry, @Nullable Instant validUntil) {
	}

	/** The outcome of one input. */
	record Transition(State state, List<LeaseEffect> effects) {
	}

	/** Everything a lease knows: copied, never shared, by each transition. */
	static final class State {

		LeaseState state = LeaseState.NEW;

		int generation;

		@Nullable Held held;

		@Nullable Op inFlight;

		@Nullable Instant attemptDeadline;

		int sentUnder;

		@Nullable Op pending;

		RotationCause cause = RotationCause.CEILING;

		@Nullable Instant nextAt;

		@Nullable Next next;

		int failures;

		@Nullable LeaseSourceException lastFailure;

		int refusals;

		@Nullable Duration fullTtl;

		int ceilingReportedFor;

		boolean lossReported;

		boolean shortWindowReported;

		int releasing;

		@Nullable Instant verifiedAt;

		/**
		 * When the generation held was asked for (its last log-in, for a token): its
		 * ceiling is this plus the max TTL; {@code null} for an adopted grant, whose
		 * start is unknown.
		 */
		@Nullable Instant generationStart;

		/**
		 * The max TTL learnt from a ceiling: each later generation's ceiling is
		 * predicted.
		 */
		@Nullable Duration maxTtl;

		/**
		 * This state's snapshot, built when first asked for (by any thread: a state is
		 * never changed once a transition returned it, and a snapshot is immutable).
		 */
		private @Nullable LeaseSnapshot snapshot;

		State copy() {
			State c = new State();
			c.state = this.state;
			c.generation = this.generation;
			c.held = this.held;
			c.inFlight = this.inFlight;
			c.attemptDeadline = this.attemptDeadline;
			c.sentUnder = this.sentUnder;
			c.pending = this.pending;
			c.cause = this.cause;
			c.nextAt = this.nextAt;
			c.next = this.next;
			c.failures = this.failures;
			c.lastFailure = this.lastFailure;
			c.refusals = this.refusals;
			c.fullTtl = this.fullTtl;
			c.ceilingReportedFor = this.ceilingReportedFor;
			c.lossReported = this.lossReported;
			c.shortWindowReported = this.shortWindowReported;
			c.releasing = this.releasing;
			c.verifiedAt = this.verifiedAt;
			c.generationStart = this.generationStart;
			c.maxTtl = this.maxTtl;
			return c;
		}

		/** The instant the lease's one timer must fire at, or {@code null}. */
		@Nullable Instant timerAt() {
			if (this.state == LeaseState.REVOKED) {
				return null;
			}
			if (this.inFlight == null) {
				return this.nextAt;
			}
			Instant validity = (this.held != null && this.state.holdsGrant() && this.held.expires())
					? this.held.validUntil() : null;
			if (this.attemptDeadline == null) {
				return validity;
			}
			return (validity != null && validity.isBefore(this.attemptDeadline)) ? validity : this.attemptDeadline;
		}

		LeaseSnapshot snapshot(String name) {
			LeaseSnapshot built = this.snapshot;
			if (built == null) {
				built = buildSnapshot(name);
				this.snapshot = built;
			}
			return built;
		}

		private LeaseSnapshot buildSnapshot(String name) {
			Held h = this.held;
			Instant nextAction = (this.inFlight == null) ? this.nextAt : null;
			if (h == null) {
				return new LeaseSnapshot(name, this.generation, null, this.state, null, null, null, null, nextAction,
						Map.of());
			}
			Grant grant = h.grant();
			return new LeaseSnapshot(name, h.generation(), grant.leaseId(), this.state, grant.obtainedAt(), grant.ttl(),
					h.expiry(), h.validUntilOrNull(), nextAction, this.state.holdsGrant() ? grant.data() : Map.of());
		}

	}

}
