package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseInput.TokenNews;
import dev.leasekeeper.core.LeaseMachine.Next;
import dev.leasekeeper.core.LeaseMachine.Op;
import dev.leasekeeper.core.LeaseMachine.State;
import dev.leasekeeper.core.LeaseMachine.TokenView;

/**
 * One transition of the {@link LeaseMachine}: what each input does to a copy of the
 * state, row by row of the table in the machine's comment.
 *
 * @author Leasekeeper
 */
final class Transitions extends TransitionSupport {

	Transitions(LeaseMachine.Settings settings, RandomGenerator random, State s, Instant now,
			@Nullable TokenView token) {
		super(settings, random, s, now, token);
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
		else if (input instanceof LeaseInput.ClockJumped) {
			clockJumped();
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
		if (lateness.compareTo(this.schedule.lateTolerance(window())) > 0) {
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
			Instant predicted = predictedCeiling();
			if (this.s.cause == RotationCause.CEILING && this.s.held != null && predicted != null) {
				// a rotation in the slot of the renewal that would have come back capped
				ceiling(this.s.held, predicted);
			}
			acquire(this.s.cause);
		}
		else {
			renewOrReplace();
		}
	}

	/**
	 * Time passed unseen (a suspend): the grant is uncertain, one authoritative attempt
	 * tells. Past its validity it is the late timer's renewal; within it, a renewal now.
	 * An operation in flight tells by its answer.
	 */
	void clockJumped() {
		Held held = this.s.held;
		if (held == null || !this.s.state.holdsGrant() || this.s.inFlight != null
				|| this.s.state == LeaseState.ROTATING) {
			return;
		}
		Next next = (this.s.next != null) ? this.s.next : Next.RENEW;
		if (usableHeldExpired()) {
			this.s.next = null;
			this.s.nextAt = null;
			uncertain(next);
		}
		else if (held.grant().renewable() && next != Next.ACQUIRE) {
			request(Op.RENEW);
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
		send(Op.RENEW, this.now.plus(this.schedule.budget(window()).attemptTimeout()));
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
		Held held = this.s.held;
		if (held != null && sameCredential(held.grant(), grant) && tookBack(held, grant)) {
			return;
		}
		Held candidate = Held.of(grant, this.s.generation + 1, this.s.sentUnder,
				(this.token != null) ? this.token.expiry() : null,
				(this.token != null) ? this.token.validUntil() : null, this.schedule);
		this.s.inFlight = Op.OFFER;
		this.effects.add(new LeaseEffect.Offer(candidate, usable() ? this.s.held : null));
	}

	void install(Held candidate) {
		// the token may have been renewed while the consumers were taking the
		// candidate
		Held next = (this.token != null && candidate.tokenGeneration() == this.token.generation())
				? candidate.withToken(this.token.expiry(), this.token.validUntil(), this.schedule) : candidate;
		Held replaced = this.s.held;
		boolean replacing = usable();
		// a rotation at the ceiling keeps the lease's cadence: no re-spread first renewal
		boolean keepCadence = replacing && this.s.cause == RotationCause.CEILING;
		int previousGeneration = this.s.generation;
		this.s.generation = next.generation();
		this.s.held = next;
		Grant grant = next.grant();
		this.s.fullTtl = grant.ttl();
		clearFailures();
		this.s.lossReported = false;
		// a grant taken over from somebody else was issued before it was obtained: its
		// ceiling is neither predicted nor learnt from when it was obtained (a max TTL
		// learnt so would be short by its age, and every later generation would rotate
		// that much early)
		this.s.generationStart = (previousGeneration == 0 && this.settings.adoptsFirstGrant()) ? null
				: grant.obtainedAt();
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
		else if (grant.refreshAfter() != null) {
			// the store replaces it on its own schedule (a static role): read it again
			// then, never before
			this.s.state = LeaseState.ACTIVE;
			this.s.cause = this.settings.refreshCause();
			plan(Next.ACQUIRE, grant.obtainedAt().plus(grant.refreshAfter()));
		}
		else if (!grant.renewable()) {
			this.s.state = LeaseState.CEILING;
			this.s.cause = RotationCause.CEILING;
			plan(Next.ACQUIRE, (next.generation() == 1) ? this.schedule.firstRenewal(grant, random())
					: this.schedule.nextRenewal(grant, random()));
		}
		else {
			this.s.state = LeaseState.ACTIVE;
			planRenewal(keepCadence ? this.schedule.nextRenewal(grant, random())
					: this.schedule.firstRenewal(grant, random()));
		}
		checkWindow();
		if (grant.expires() && !grant.renewable() && grant.refreshAfter() == null) {
			ceiling(next);
		}
		this.effects.add((previousGeneration == 0) ? new LeaseEffect.Acquired()
				: new LeaseEffect.Rotated(previousGeneration, cause));
		this.effects.add(new LeaseEffect.TellDependents(TokenNews.REPLACED, next.generation(), next.expiry(),
				next.validUntilOrNull()));
		if (replaced != null && replaced.generation() < next.generation()) {
			this.s.releasing++;
			// a ceiling's revocations are spread over the replaced grant's remaining life
			Instant revokeAt = null;
			if (keepCadence && replaced.isValidAt(this.now)) {
				long left = Duration.between(this.now, replaced.validUntil()).toNanos();
				revokeAt = this.now.plusNanos((long) (random().nextDouble() * left));
			}
			this.effects.add(new LeaseEffect.Release(replaced, this.settings.revokeReplaced(), revokeAt));
		}
		runPending();
	}

	/**
	 * A credential the store replaces on its own schedule was read again and is the one
	 * held (a static role not rotated yet, a fleet's grant its leader renewed): its
	 * validity moves, as a renewal's would; nothing is handed to the consumers and no
	 * generation is added.
	 */
	void refreshed(Grant grant) {
		Held previous = this.s.held;
		Held next = previous.withGrant(grant, this.schedule);
		this.s.held = next;
		this.s.fullTtl = grant.ttl();
		int attempts = this.s.failures + 1;
		clearFailures();
		this.s.state = LeaseState.ACTIVE;
		this.s.cause = this.settings.refreshCause();
		plan(Next.ACQUIRE, grant.obtainedAt().plus(grant.refreshAfter()));
		this.effects.add(renewedEffect(previous, grant, attempts, false));
		if (this.s.pending == Op.RENEW || this.s.pending == Op.VERIFY) {
			this.s.pending = null;
		}
		runPending();
	}

	/**
	 * The store gave back the credential held: take it as what it is rather than as a new
	 * generation, if it is one of those cases.
	 * @return whether it was taken so
	 */
	private boolean tookBack(Held held, Grant grant) {
		if (grant.refreshAfter() != null) {
			if (usable()) {
				refreshed(grant);
				return true;
			}
			return false;
		}
		if (outlives(grant, held)) {
			return false;
		}
		if (usable()) {
			irreplaceable();
			return true;
		}
		if (this.s.ceilingReportedFor == held.generation()) {
			// the credential lost at its end, given back for what little it has left:
			// taken again, it would be lost again, sooner each time
			planAfter(grant);
			return true;
		}
		return false;
	}

	/**
	 * An acquisition gave back the credential held, for no longer than it had (a token
	 * given in configuration: its log-in is a look-up of that same token): the store has
	 * no other to give. It is not a new generation (the dependents keep their grants); it
	 * is renewed on as before, and once it cannot be (its ceiling, a refusal), kept until
	 * it ends, with no further request: asking again would only bring it back, as often
	 * as the store answers.
	 */
	void irreplaceable() {
		Held held = this.s.held;
		clearFailures();
		this.s.state = LeaseState.ACTIVE;
		if (this.s.pending == Op.ACQUIRE) {
			this.s.pending = null;
		}
		// at its ceiling, or its renewal refused: nothing more to ask for it
		boolean ended = this.s.ceilingReportedFor == held.generation();
		if (ended || !held.grant().renewable()) {
			this.effects.add(new LeaseEffect.CannotBeReplaced(held.validUntil()));
			plan(Next.EXPIRE, held.validUntil());
		}
		else {
			planRenewal(this.schedule.nextRenewal(held.grant(), random()));
		}
		runPending();
	}

	/**
	 * A credential lost at its end came back from an acquisition for what was left of it:
	 * the next one is asked for once the store can no longer give it back (its expiry),
	 * the shortest interval between two log-ins later.
	 */
	void planAfter(Grant gaveBack) {
		Instant expiry = gaveBack.expiry();
		Instant from = (expiry != null && expiry.isAfter(this.now)) ? expiry : this.now;
		plan(Next.ACQUIRE, from.plus(this.schedule.reloginInterval(this.s.fullTtl)));
		runPending();
	}

	/**
	 * What a renewal tells: the expiry as held before it was sent (not as an unanswered
	 * renewal bounded it), and what was left of it then.
	 */
	private static LeaseEffect.Renewed renewedEffect(Held previous, Grant grant, int attempts, boolean capped) {
		Instant previousExpiry = previous.expiryBeforeRenewal();
		Duration remaining = (previousExpiry != null) ? Duration.between(grant.obtainedAt(), previousExpiry)
				: Duration.ZERO;
		return new LeaseEffect.Renewed(previousExpiry, remaining.isNegative() ? Duration.ZERO : remaining, attempts,
				capped);
	}

	private static boolean sameCredential(Grant held, Grant read) {
		return held.leaseId().equals(read.leaseId()) && held.data().equals(read.data());
	}

	/**
	 * Whether the credential given back lives longer than the one held (a secret read
	 * again with a new TTL), rather than for what is left of it (a token looked up).
	 */
	private static boolean outlives(Grant read, Held held) {
		Instant expiry = read.expiry();
		Instant heldExpiry = held.grantExpiry();
		return expiry == null || heldExpiry == null || expiry.isAfter(heldExpiry.plus(Held.STORE_GRANULARITY));
	}

	void renewed(Grant answer) {
		Held previous = this.s.held;
		if (previous == null) {
			return;
		}
		Map<String, Object> data = previous.grant().data();
		// a renewal's answer carries no credential: the one held goes on
		Grant grant = (answer.data().isEmpty() && !data.isEmpty()) ? answer.withData(data) : answer;
		Held next = previous.withGrant(grant, this.schedule);
		this.s.held = next;
		int attempts = this.s.failures + 1;
		clearFailures();
		boolean capped = this.schedule.showsCeiling(grant, this.settings.increment(), this.s.fullTtl);
		if (!capped) {
			this.s.fullTtl = grant.ttl();
			forgetOutlivedCeiling(grant);
		}
		if (!grant.expires()) {
			this.s.state = LeaseState.ACTIVE;
			this.s.nextAt = null;
			this.s.next = null;
		}
		else if (capped && this.settings.onCeiling() == CeilingAction.ROTATE) {
			// the ceiling was not known in advance: rotate at the capped answer, and
			// learn the max TTL so that later generations rotate in their own slot
			this.s.state = LeaseState.CEILING;
			this.s.cause = RotationCause.CEILING;
			Instant hard = grant.expiry();
			if (hard != null && this.s.generationStart != null) {
				this.s.maxTtl = Duration.between(this.s.generationStart, hard);
			}
			plan(Next.ACQUIRE, this.now);
		}
		else {
			this.s.state = LeaseState.ACTIVE;
			planRenewal(this.schedule.nextRenewal(grant, random()));
		}
		checkWindow();
		this.effects.add(renewedEffect(previous, grant, attempts, capped));
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

	/* ---- The token ---- */

	void tokenChanged(TokenNews news, int generation, @Nullable Instant expiry, @Nullable Instant validUntil) {
		Held held = this.s.held;
		if (this.s.state == LeaseState.REVOKED) {
			return;
		}
		switch (news) {
			case RENEWED -> {
				if (held != null && held.tokenGeneration() == generation) {
					this.s.held = held.withToken(expiry, validUntil, this.schedule);
					replanCappedAction();
				}
			}
			case REPLACED -> {
				if (this.s.inFlight == null && this.s.pending == Op.ACQUIRE) {
					this.s.pending = null;
					acquire(this.s.cause);
				}
				else if (held != null && this.s.state.holdsGrant() && held.tokenGeneration() < generation) {
					replaceForToken();
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

	@Override
	void verifyRequested(int generation) {
		if (this.s.generation != generation || !usable()) {
			return;
		}
		Instant verified = this.s.verifiedAt;
		if (verified != null
				&& Duration.between(verified, this.now).compareTo(this.schedule.verificationValidity(window())) < 0) {
			confirmed();
			return;
		}
		if (this.s.inFlight != null) {
			if (this.s.pending == null) {
				this.s.pending = Op.VERIFY;
			}
			return;
		}
		Duration timeout = this.schedule.attemptTimeout(this.now, this.s.held.validUntil(), window());
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

}
