package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseInput.TokenNews;

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
		Step step = new Step(current.copy(), now, token);
		step.on(input);
		step.followToken();
		step.capAtValidity();
		return new Transition(step.s, List.copyOf(step.effects));
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

	/** The fixed settings of one lease. */
	record Settings(RenewalSchedule schedule, @Nullable Duration increment, CeilingAction onCeiling,
			boolean reacquireOnLoss, boolean revokeReplaced, boolean dependent) {
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

		@Nullable Instant lastAcquiredAt;

		@Nullable Instant verifiedAt;

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
			c.lastAcquiredAt = this.lastAcquiredAt;
			c.verifiedAt = this.verifiedAt;
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

	/** One transition in the making. */
	private final class Step {

		final State s;

		final Instant now;

		final @Nullable TokenView token;

		final List<LeaseEffect> effects = new ArrayList<>(4);

		Step(State s, Instant now, @Nullable TokenView token) {
			this.s = s;
			this.now = now;
			this.token = token;
		}

		void on(LeaseInput input) {
			if (input instanceof LeaseInput.Start) {
				if (this.s.state == LeaseState.NEW) {
					this.s.state = LeaseState.ACQUIRING;
					acquire(RotationCause.LOST);
				}
			}
			else if (input instanceof LeaseInput.TimerFired fired) {
				timerFired(fired.due());
			}
			else if (input instanceof LeaseInput.Answered answered) {
				answered(answered.op(), answered.grant());
			}
			else if (input instanceof LeaseInput.Failed failed) {
				failed(failed.op(), failed.failure());
			}
			else if (input instanceof LeaseInput.Accepted accepted) {
				this.s.inFlight = null;
				if (this.s.state == LeaseState.REVOKED) {
					this.effects.add(new LeaseEffect.Revoke(accepted.candidate().grant()));
				}
				else {
					install(accepted.candidate());
				}
			}
			else if (input instanceof LeaseInput.Rejected rejected) {
				this.s.inFlight = null;
				this.effects.add(new LeaseEffect.Revoke(rejected.candidate().grant()));
				this.effects.add(new LeaseEffect.ReplacementRejected(rejected.failure()));
				if (this.s.state != LeaseState.REVOKED) {
					acquisitionFailed(LeaseSourceException.transientFailure("rejected-by-consumer",
							"a consumer rejected the new grant", null));
				}
			}
			else if (input instanceof LeaseInput.Released) {
				this.s.releasing--;
			}
			else if (input instanceof LeaseInput.TokenChanged changed) {
				tokenChanged(changed.news(), changed.generation(), changed.expiry(), changed.validUntil());
			}
			else if (input instanceof LeaseInput.VerifyRequested verify) {
				verifyRequested(verify.generation());
			}
			else if (input instanceof LeaseInput.RenewRequested) {
				if (this.s.held != null && this.s.state.holdsGrant() && this.s.state != LeaseState.ROTATING) {
					request(Op.RENEW);
				}
			}
			else if (input instanceof LeaseInput.RotateRequested rotate) {
				if (this.s.state != LeaseState.NEW && this.s.state != LeaseState.REVOKED) {
					acquire(rotate.cause());
				}
			}
			else if (input instanceof LeaseInput.Stop stop) {
				stop(stop.revoke());
			}
		}

		/* ---- Timer ---- */

		void timerFired(Instant due) {
			if (this.s.state == LeaseState.REVOKED || this.s.state == LeaseState.NEW) {
				return;
			}
			if (this.s.inFlight != null) {
				if (this.s.attemptDeadline != null && !this.now.isBefore(this.s.attemptDeadline)) {
					Op op = this.s.inFlight;
					failed(op, LeaseSourceException.transientFailure("timeout", "no answer in time", null));
				}
				else if (usableHeldExpired()) {
					lose(LeaseLossReason.EXPIRED, errorClass());
				}
				return;
			}
			Next next = this.s.next;
			if (next == null || this.s.nextAt == null) {
				return;
			}
			this.s.next = null;
			this.s.nextAt = null;
			Duration lateness = Duration.between(due, this.now);
			boolean pastValidity = usableHeldExpired();
			if (lateness.compareTo(LeaseMachine.this.schedule.lateTolerance(window())) > 0) {
				this.effects.add(new LeaseEffect.Late(lateness, pastValidity));
			}
			else if (next == Next.EXPIRE && pastValidity) {
				// on time: every attempt within the validity failed
				lose(LeaseLossReason.EXPIRED, errorClass());
				return;
			}
			if (pastValidity) {
				uncertain(next);
			}
			else if (next == Next.ACQUIRE) {
				acquire(this.s.cause);
			}
			else {
				renewOrReplace();
			}
		}

		/**
		 * The validity passed unseen: one authoritative attempt before calling it lost.
		 */
		void uncertain(Next next) {
			Held held = this.s.held;
			if (held == null || !held.grant().renewable() || next == Next.ACQUIRE) {
				lose(LeaseLossReason.EXPIRED, errorClass());
				return;
			}
			this.s.state = LeaseState.EXPIRED;
			send(Op.RENEW, this.now.plus(LeaseMachine.this.schedule.budget(window()).attemptTimeout()));
		}

		/* ---- Answers ---- */

		void answered(Op op, Grant grant) {
			if (op != this.s.inFlight) {
				if (op == Op.ACQUIRE) {
					// the attempt was abandoned: nobody will use this grant
					this.effects.add(new LeaseEffect.Revoke(grant));
				}
				return;
			}
			this.s.inFlight = null;
			this.s.attemptDeadline = null;
			if (op == Op.ACQUIRE) {
				acquired(grant);
			}
			else if (op == Op.RENEW) {
				renewed(grant);
			}
			else if (op == Op.VERIFY) {
				confirmed();
				runPending();
			}
		}

		void acquired(Grant grant) {
			if (this.s.state == LeaseState.REVOKED) {
				this.effects.add(new LeaseEffect.Revoke(grant));
				return;
			}
			if (this.token != null && this.s.sentUnder != this.token.generation()) {
				// obtained under a token that is no longer current: it would die with it
				this.effects.add(new LeaseEffect.Revoke(grant));
				acquire(RotationCause.TOKEN);
				return;
			}
			Held candidate = Held.of(grant, this.s.generation + 1, this.s.sentUnder,
					(this.token != null) ? this.token.expiry() : null,
					(this.token != null) ? this.token.validUntil() : null, LeaseMachine.this.schedule);
			this.s.inFlight = Op.OFFER;
			this.effects.add(new LeaseEffect.Offer(candidate, usable() ? this.s.held : null));
		}

		void install(Held candidate) {
			// the token may have been renewed while the consumers were taking the
			// candidate
			Held next = (this.token != null && candidate.tokenGeneration() == this.token.generation())
					? candidate.withToken(this.token.expiry(), this.token.validUntil(), LeaseMachine.this.schedule)
					: candidate;
			Held replaced = this.s.held;
			boolean replacing = usable();
			int previousGeneration = this.s.generation;
			this.s.generation = next.generation();
			this.s.held = next;
			Grant grant = next.grant();
			this.s.fullTtl = grant.ttl();
			clearFailures();
			this.s.lossReported = false;
			this.s.lastAcquiredAt = this.now;
			if (this.token != null && next.tokenGeneration() != this.token.generation()) {
				// the token changed while the consumers were taking this grant
				this.s.pending = Op.ACQUIRE;
				this.s.cause = RotationCause.TOKEN;
			}
			else if (this.s.pending == Op.ACQUIRE) {
				this.s.pending = null;
			}
			RotationCause cause = replacing ? this.s.cause : RotationCause.LOST;
			if (!grant.expires()) {
				this.s.state = LeaseState.ACTIVE;
			}
			else if (!grant.renewable()) {
				this.s.state = LeaseState.CEILING;
				this.s.cause = RotationCause.CEILING;
				plan(Next.ACQUIRE, (next.generation() == 1) ? LeaseMachine.this.schedule.firstRenewal(grant, random())
						: LeaseMachine.this.schedule.nextRenewal(grant, random()));
			}
			else {
				this.s.state = LeaseState.ACTIVE;
				plan(Next.RENEW, LeaseMachine.this.schedule.firstRenewal(grant, random()));
			}
			checkWindow();
			if (grant.expires() && !grant.renewable()) {
				ceiling(next);
			}
			this.effects.add((previousGeneration == 0) ? new LeaseEffect.Acquired()
					: new LeaseEffect.Rotated(previousGeneration, cause));
			this.effects.add(new LeaseEffect.TellDependents(TokenNews.REPLACED, next.generation(), next.expiry(),
					next.validUntilOrNull()));
			if (replaced != null && replaced.generation() < next.generation()) {
				this.s.releasing++;
				this.effects.add(new LeaseEffect.Release(replaced, LeaseMachine.this.settings.revokeReplaced()));
			}
			runPending();
		}

		void renewed(Grant answer) {
			Held previous = this.s.held;
			if (previous == null) {
				return;
			}
			Grant grant = answer.data().isEmpty() ? answer.withData(previous.grant().data()) : answer;
			Held next = previous.withGrant(grant, LeaseMachine.this.schedule);
			this.s.held = next;
			int attempts = this.s.failures + 1;
			clearFailures();
			boolean capped = LeaseMachine.this.schedule.showsCeiling(grant, LeaseMachine.this.settings.increment(),
					this.s.fullTtl);
			if (!capped) {
				this.s.fullTtl = grant.ttl();
			}
			if (!grant.expires()) {
				this.s.state = LeaseState.ACTIVE;
				this.s.nextAt = null;
				this.s.next = null;
			}
			else if (capped && LeaseMachine.this.settings.onCeiling() == CeilingAction.ROTATE) {
				this.s.state = LeaseState.CEILING;
				this.s.cause = RotationCause.CEILING;
				plan(Next.ACQUIRE, LeaseMachine.this.schedule.rotation(grant, random(), this.now));
			}
			else {
				this.s.state = LeaseState.ACTIVE;
				plan(Next.RENEW, LeaseMachine.this.schedule.nextRenewal(grant, random()));
			}
			checkWindow();
			Instant previousExpiry = previous.expiry();
			Duration remaining = (previousExpiry != null) ? Duration.between(grant.obtainedAt(), previousExpiry)
					: Duration.ZERO;
			this.effects.add(new LeaseEffect.Renewed(previousExpiry, remaining.isNegative() ? Duration.ZERO : remaining,
					attempts, capped));
			if (capped) {
				ceiling(next);
			}
			this.effects.add(new LeaseEffect.TellDependents(TokenNews.RENEWED, next.generation(), next.expiry(),
					next.validUntilOrNull()));
			if (this.s.pending == Op.RENEW) {
				this.s.pending = null;
			}
			else if (this.s.pending == Op.VERIFY) {
				// a renewal proves the token valid as well as a look-up does
				this.s.pending = null;
				confirmed();
			}
			runPending();
		}

		void confirmed() {
			this.s.verifiedAt = this.now;
			Held held = this.s.held;
			this.effects.add(new LeaseEffect.TellDependents(TokenNews.CONFIRMED, this.s.generation,
					(held != null) ? held.expiry() : null, (held != null) ? held.validUntilOrNull() : null));
		}

		/* ---- Failures ---- */

		void failed(Op op, LeaseSourceException failure) {
			if (op != this.s.inFlight) {
				return;
			}
			this.s.inFlight = null;
			this.s.attemptDeadline = null;
			if (op == Op.VERIFY) {
				if (failure.getKind() == LeaseSourceException.Kind.UNAUTHORIZED || failure.isCredentialGone()) {
					recordFailure(failure);
					lose(LeaseLossReason.UNAUTHORIZED, failure.getErrorClass());
				}
				runPending();
				return;
			}
			recordFailure(failure);
			if (op == Op.RENEW) {
				renewalFailed(failure);
			}
			else {
				acquisitionFailed(failure);
			}
		}

		void renewalFailed(LeaseSourceException failure) {
			Held held = this.s.held;
			LeaseSourceException.Kind kind = failure.getKind();
			if (held == null || this.s.state == LeaseState.EXPIRED) {
				// uncertain, and the store did not confirm
				this.effects.add(new LeaseEffect.AttemptFailed(failure, this.s.failures, null));
				lose(LeaseLossReason.EXPIRED, failure.getErrorClass());
				return;
			}
			if (kind == LeaseSourceException.Kind.PERMANENT) {
				this.effects.add(new LeaseEffect.AttemptFailed(failure, this.s.failures, this.now));
				if (failure.isCredentialGone()) {
					lose(LeaseLossReason.REVOKED, failure.getErrorClass());
				}
				else {
					ceiling(held);
					acquire(RotationCause.REFUSED);
				}
				return;
			}
			if (kind == LeaseSourceException.Kind.UNAUTHORIZED && !LeaseMachine.this.settings.dependent()) {
				this.effects.add(new LeaseEffect.AttemptFailed(failure, this.s.failures, this.now));
				lose(LeaseLossReason.UNAUTHORIZED, failure.getErrorClass());
				return;
			}
			if (kind == LeaseSourceException.Kind.UNAUTHORIZED) {
				if (this.s.refusals > 0) {
					pathRefused(failure, Next.RENEW);
					return;
				}
				this.effects.add(new LeaseEffect.VerifyToken(held.tokenGeneration()));
			}
			this.s.state = LeaseState.RETRYING;
			Optional<Instant> next = LeaseMachine.this.schedule.retry(this.s.failures, random(), this.now,
					held.validUntil(), window());
			this.effects.add(new LeaseEffect.AttemptFailed(failure, this.s.failures, next.orElse(null)));
			if (next.isPresent()) {
				plan(Next.RENEW, next.get());
			}
			else {
				plan(Next.EXPIRE, held.validUntil());
			}
		}

		void acquisitionFailed(LeaseSourceException failure) {
			boolean holding = usable();
			LeaseSourceException.Kind kind = failure.getKind();
			boolean dependent = LeaseMachine.this.settings.dependent();
			if (kind == LeaseSourceException.Kind.UNAUTHORIZED && dependent) {
				if (this.s.refusals > 0) {
					pathRefused(failure, Next.ACQUIRE);
					return;
				}
				this.effects.add(new LeaseEffect.VerifyToken(this.s.sentUnder));
			}
			boolean refused = kind == LeaseSourceException.Kind.PERMANENT
					|| (kind == LeaseSourceException.Kind.UNAUTHORIZED && !dependent);
			if (refused && this.s.generation == 0) {
				this.effects.add(new LeaseEffect.FirstGrantFailed(failure));
			}
			Instant next = null;
			if (holding) {
				next = LeaseMachine.this.schedule
					.retry(this.s.failures, random(), this.now, this.s.held.validUntil(), window())
					.orElse(null);
			}
			else if (LeaseMachine.this.settings.reacquireOnLoss() || (this.s.generation == 0 && !refused)) {
				next = LeaseMachine.this.schedule.retry(this.s.failures, random(), this.now, null, this.s.fullTtl)
					.orElseThrow();
				next = notBeforeRelogin(next);
			}
			this.effects.add(new LeaseEffect.AttemptFailed(failure, this.s.failures, next));
			if (!holding && refused) {
				this.s.state = LeaseState.LOST;
				if (!this.s.lossReported) {
					// once per loss, not at every attempt to obtain the lease again
					this.s.lossReported = true;
					this.effects.add(new LeaseEffect.Lost(LeaseLossReason.REFUSED, failure.getErrorClass()));
				}
			}
			if (next != null) {
				plan(Next.ACQUIRE, next);
			}
			else if (holding) {
				plan(Next.EXPIRE, this.s.held.validUntil());
			}
			else {
				this.s.nextAt = null;
				this.s.next = null;
			}
		}

		/** The token is valid, so a refusal of this lease's path is its policy. */
		void pathRefused(LeaseSourceException failure, Next retry) {
			this.s.refusals++;
			@Nullable Instant at = this.now.plus(LeaseMachine.this.schedule.refusalDelay(this.s.refusals));
			boolean holding = usable();
			if (holding) {
				Instant last = LeaseMachine.this.schedule.lastAttempt(this.s.held.validUntil(), window());
				if (at.isAfter(last)) {
					at = this.now.isBefore(last) ? last : null;
				}
			}
			if (this.s.refusals == 1) {
				this.effects.add(new LeaseEffect.PathRefused(failure, (at != null) ? at : this.s.held.validUntil()));
			}
			if (holding) {
				this.s.state = (retry == Next.ACQUIRE) ? LeaseState.ROTATING : LeaseState.RETRYING;
				plan((at != null) ? retry : Next.EXPIRE, (at != null) ? at : this.s.held.validUntil());
				return;
			}
			if (this.s.generation == 0) {
				this.effects.add(new LeaseEffect.FirstGrantFailed(failure));
			}
			this.s.state = LeaseState.LOST;
			if (!this.s.lossReported) {
				this.s.lossReported = true;
				this.effects.add(new LeaseEffect.Lost(LeaseLossReason.REFUSED, failure.getErrorClass()));
			}
			plan(Next.ACQUIRE, at);
		}

		/* ---- Loss ---- */

		void lose(LeaseLossReason reason, @Nullable String errorClass) {
			Held held = this.s.held;
			if (held != null) {
				this.s.held = held.goneAt(this.now);
			}
			this.s.state = (reason == LeaseLossReason.EXPIRED) ? LeaseState.EXPIRED : LeaseState.LOST;
			if (this.s.inFlight == Op.RENEW || this.s.inFlight == Op.VERIFY) {
				// it can no longer save the grant: its answer will be ignored
				this.s.inFlight = null;
				this.s.attemptDeadline = null;
			}
			this.s.nextAt = null;
			this.s.next = null;
			this.s.lossReported = true;
			this.effects.add(new LeaseEffect.Lost(reason, errorClass));
			this.effects.add(new LeaseEffect.TellDependents(TokenNews.LOST, this.s.generation, null, null));
			if (LeaseMachine.this.settings.reacquireOnLoss()) {
				this.s.failures = 0;
				Instant relogin = notBeforeRelogin(this.now);
				if (relogin.isAfter(this.now) && this.s.inFlight == null) {
					this.s.cause = RotationCause.LOST;
					plan(Next.ACQUIRE, relogin);
				}
				else {
					acquire(RotationCause.LOST);
				}
			}
		}

		/* ---- The token ---- */

		void tokenChanged(TokenNews news, int generation, @Nullable Instant expiry, @Nullable Instant validUntil) {
			Held held = this.s.held;
			if (this.s.state == LeaseState.REVOKED) {
				return;
			}
			switch (news) {
				case RENEWED -> {
					if (held != null && held.tokenGeneration() == generation) {
						this.s.held = held.withToken(expiry, validUntil, LeaseMachine.this.schedule);
						replanCappedAction();
					}
				}
				case REPLACED -> {
					if (this.s.inFlight == null && this.s.pending == Op.ACQUIRE) {
						this.s.pending = null;
						acquire(this.s.cause);
					}
					else if (held != null && this.s.state.holdsGrant() && held.tokenGeneration() < generation) {
						acquire(RotationCause.TOKEN);
					}
				}
				case LOST -> {
					if (held != null && this.s.state.holdsGrant() && held.tokenGeneration() <= generation) {
						lose(LeaseLossReason.EXPIRED, "token-lost");
					}
				}
				case CONFIRMED -> {
					LeaseSourceException failure = this.s.lastFailure;
					if (this.s.inFlight == null && failure != null
							&& failure.getKind() == LeaseSourceException.Kind.UNAUTHORIZED && this.s.refusals == 0) {
						pathRefused(failure, (this.s.next == Next.ACQUIRE) ? Next.ACQUIRE : Next.RENEW);
					}
				}
			}
		}

		void verifyRequested(int generation) {
			if (this.s.generation != generation || !usable()) {
				return;
			}
			Instant verified = this.s.verifiedAt;
			if (verified != null && Duration.between(verified, this.now)
				.compareTo(LeaseMachine.this.schedule.verificationValidity(window())) < 0) {
				confirmed();
				return;
			}
			if (this.s.inFlight != null) {
				if (this.s.pending == null) {
					this.s.pending = Op.VERIFY;
				}
				return;
			}
			Duration timeout = LeaseMachine.this.schedule.attemptTimeout(this.now, this.s.held.validUntil(), window());
			this.s.inFlight = Op.VERIFY;
			this.s.attemptDeadline = this.now.plus(timeout);
			this.effects.add(new LeaseEffect.Send(Op.VERIFY));
		}

		/* ---- Commands and stop ---- */

		void request(Op op) {
			if (this.s.inFlight != null) {
				// a replacement asked for is never downgraded to a renewal
				if (this.s.pending != Op.ACQUIRE) {
					this.s.pending = op;
				}
				return;
			}
			renewOrReplace();
		}

		void stop(boolean revoke) {
			if (this.s.state == LeaseState.REVOKED) {
				return;
			}
			Held held = this.s.held;
			Grant revocation = (revoke && held != null && this.s.state.holdsGrant()) ? held.grant() : null;
			this.s.state = LeaseState.REVOKED;
			this.s.inFlight = null;
			this.s.attemptDeadline = null;
			this.s.pending = null;
			this.s.nextAt = null;
			this.s.next = null;
			this.effects.add(new LeaseEffect.Shutdown(revoke, revocation));
		}

		/* ---- Helpers ---- */

		void acquire(RotationCause cause) {
			if (this.s.state == LeaseState.REVOKED) {
				return;
			}
			this.s.cause = cause;
			if (this.s.inFlight != null) {
				this.s.pending = Op.ACQUIRE;
				return;
			}
			if (this.token != null && !this.token.holds()) {
				// obtained under a token that is being replaced, it would die with it
				this.s.pending = Op.ACQUIRE;
				this.s.nextAt = null;
				this.s.next = null;
				if (usable()) {
					plan(Next.EXPIRE, this.s.held.validUntil());
				}
				return;
			}
			this.s.state = usable() ? LeaseState.ROTATING : LeaseState.ACQUIRING;
			this.s.sentUnder = (this.token != null) ? this.token.generation() : 0;
			send(Op.ACQUIRE, this.now.plus(LeaseMachine.this.schedule.attemptTimeout(this.now, null, this.s.fullTtl)));
		}

		void renewOrReplace() {
			Held held = this.s.held;
			if (held != null && usable() && held.grant().renewable()) {
				this.s.state = (this.s.failures > 0) ? LeaseState.RETRYING : LeaseState.RENEWING;
				send(Op.RENEW, this.now
					.plus(LeaseMachine.this.schedule.attemptTimeout(this.now, held.validUntil(), window())));
			}
			else {
				acquire(this.s.cause);
			}
		}

		void send(Op op, Instant deadline) {
			this.s.inFlight = op;
			this.s.attemptDeadline = deadline;
			if (op == Op.RENEW && this.s.held != null && this.s.held.renewalSentAt() == null) {
				// until a renewal is answered, the earliest one sent bounds what the
				// store holds
				this.s.held = this.s.held.withRenewalSentAt(this.now, LeaseMachine.this.schedule);
			}
			this.s.nextAt = null;
			this.s.next = null;
			this.effects.add(new LeaseEffect.Send(op));
		}

		void runPending() {
			Op op = this.s.pending;
			if (op == null || this.s.inFlight != null || this.s.state == LeaseState.REVOKED) {
				return;
			}
			this.s.pending = null;
			if (op == Op.ACQUIRE) {
				acquire(this.s.cause);
			}
			else if (op == Op.RENEW && usable()) {
				renewOrReplace();
			}
			else if (op == Op.VERIFY) {
				verifyRequested(this.s.generation);
			}
		}

		void plan(Next next, Instant at) {
			this.s.next = next;
			this.s.nextAt = at;
		}

		/**
		 * A grant held under a token that has been replaced dies with that token: move
		 * it, whatever input brought the lease here (a renewal answered after the news,
		 * say).
		 */
		void followToken() {
			Held held = this.s.held;
			if (this.token == null || held == null || !this.token.holds() || !this.s.state.holdsGrant()
					|| held.tokenGeneration() >= this.token.generation() || this.s.state == LeaseState.ROTATING
					|| this.s.next == Next.ACQUIRE || this.s.pending == Op.ACQUIRE) {
				// already moving, or its next acquisition planned
				return;
			}
			if (this.s.inFlight != null) {
				this.s.pending = Op.ACQUIRE;
				this.s.cause = RotationCause.TOKEN;
			}
			else {
				acquire(RotationCause.TOKEN);
			}
		}

		/**
		 * The token's renewal moved the validity on: an action that was only capped at
		 * the old validity goes back to its own instant.
		 */
		void replanCappedAction() {
			Held held = this.s.held;
			if (held == null || this.s.inFlight != null || this.s.next != Next.EXPIRE || this.s.failures > 0) {
				return;
			}
			if (this.s.state == LeaseState.ACTIVE) {
				plan(Next.RENEW, LeaseMachine.this.schedule.nextRenewal(held.grant(), random()));
			}
			else if (this.s.state == LeaseState.CEILING) {
				plan(Next.ACQUIRE, LeaseMachine.this.schedule.rotation(held.grant(), random(), this.now));
			}
		}

		/**
		 * No planned action may fall after the validity: the token's may have shrunk it.
		 */
		void capAtValidity() {
			Held held = this.s.held;
			if (this.s.inFlight == null && this.s.nextAt != null && held != null && this.s.state.holdsGrant()
					&& this.s.nextAt.isAfter(held.validUntil())) {
				plan(Next.EXPIRE, held.validUntil());
			}
		}

		void ceiling(Held held) {
			if (this.s.ceilingReportedFor == held.generation()) {
				return;
			}
			this.s.ceilingReportedFor = held.generation();
			// the grant's own expiry: its max TTL, whatever its token does
			Instant expiry = held.grant().expiry();
			this.effects.add(new LeaseEffect.CeilingReached((expiry != null) ? expiry : this.now));
		}

		void checkWindow() {
			Duration window = window();
			if (!this.s.shortWindowReported && window != null && LeaseMachine.this.schedule.windowTooShort(window)) {
				this.s.shortWindowReported = true;
				this.effects.add(new LeaseEffect.WindowTooShort(window));
			}
		}

		Instant notBeforeRelogin(Instant at) {
			Instant last = this.s.lastAcquiredAt;
			if (LeaseMachine.this.settings.dependent() || last == null) {
				return at;
			}
			Instant earliest = last.plus(LeaseMachine.this.schedule.reloginInterval(this.s.fullTtl));
			return earliest.isAfter(at) ? earliest : at;
		}

		boolean usable() {
			return this.s.held != null && this.s.state.holdsGrant() && this.s.held.isValidAt(this.now);
		}

		boolean usableHeldExpired() {
			return this.s.held != null && this.s.state.holdsGrant() && !this.s.held.isValidAt(this.now);
		}

		@Nullable Duration window() {
			Held held = this.s.held;
			Instant expiry = (held != null) ? held.expiry() : null;
			if (expiry == null) {
				return this.s.fullTtl;
			}
			Duration window = Duration.between(held.grant().obtainedAt(), expiry);
			return window.isNegative() ? Duration.ZERO : window;
		}

		void recordFailure(LeaseSourceException failure) {
			this.s.failures++;
			this.s.lastFailure = failure;
		}

		void clearFailures() {
			this.s.failures = 0;
			this.s.lastFailure = null;
			this.s.refusals = 0;
		}

		@Nullable String errorClass() {
			return (this.s.lastFailure != null) ? this.s.lastFailure.getErrorClass() : null;
		}

		RandomGenerator random() {
			return LeaseMachine.this.random;
		}

	}

}
