package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseInput.TokenNews;
import dev.leasekeeper.core.LeaseMachine.Next;
import dev.leasekeeper.core.LeaseMachine.Op;
import dev.leasekeeper.core.LeaseMachine.State;
import dev.leasekeeper.core.LeaseMachine.TokenView;

/**
 * The moves that several rows of the {@link LeaseMachine}'s table share: acquiring,
 * renewing, sending, planning the next action, handling a failure, losing a grant, and
 * keeping a lease on its current token. One instance makes one transition, on a copy of
 * the state.
 *
 * @author Leasekeeper
 */
abstract class TransitionSupport {

	/**
	 * How often a lease whose max TTL was learnt renews in its ceiling slot instead of
	 * rotating: every this many generations ({@link #checksLearntCeiling()}).
	 */
	static final int CEILING_CHECK_EVERY = 8;

	final LeaseMachine.Settings settings;

	final RenewalSchedule schedule;

	final RandomGenerator random;

	final State s;

	final Instant now;

	final @Nullable TokenView token;

	final List<LeaseEffect> effects = new ArrayList<>(4);

	TransitionSupport(LeaseMachine.Settings settings, RandomGenerator random, State s, Instant now,
			@Nullable TokenView token) {
		this.settings = settings;
		this.schedule = settings.schedule();
		this.random = random;
		this.s = s;
		this.now = now;
		this.token = token;
	}

	/** A verification the token was asked for while busy: run once it is free. */
	abstract void verifyRequested(int generation);

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
		// what was asked for meanwhile: a replacement runs now (a renewal that keeps
		// failing
		// must not starve it); another renewal or acquisition is the retry just planned
		if (this.s.pending == Op.ACQUIRE && this.s.next != Next.ACQUIRE) {
			runPending();
		}
		else if (this.s.pending != Op.VERIFY) {
			this.s.pending = null;
		}
		else {
			runPending();
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
		if (kind == LeaseSourceException.Kind.UNAUTHORIZED && !this.settings.dependent()) {
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
		Optional<Instant> next = this.schedule.retry(this.s.failures, random(), this.now, held.validUntil(), window());
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
		boolean dependent = this.settings.dependent();
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
			next = this.schedule.retry(this.s.failures, random(), this.now, this.s.held.validUntil(), window())
				.orElse(null);
		}
		else if (this.settings.reacquireOnLoss() || (this.s.generation == 0 && !refused)) {
			next = this.schedule.retry(this.s.failures, random(), this.now, null, this.s.fullTtl).orElseThrow();
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
		@Nullable Instant at = this.now.plus(this.schedule.refusalDelay(this.s.refusals));
		boolean holding = usable();
		if (holding) {
			Instant last = this.schedule.lastAttempt(this.s.held.validUntil(), window());
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
		if (this.settings.reacquireOnLoss()) {
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
		if (this.token != null && !tokenUsable(this.token)) {
			// obtained under a token that is being replaced (or whose validity ends
			// now, its own timer not yet run), it would die with it
			this.s.pending = Op.ACQUIRE;
			this.s.nextAt = null;
			this.s.next = null;
			if (usable()) {
				plan(Next.EXPIRE, this.s.held.validUntil());
			}
			else if (this.s.state.holdsGrant()) {
				// its validity passed, and no token to obtain another under
				lose(LeaseLossReason.EXPIRED, errorClass());
			}
			return;
		}
		this.s.state = usable() ? LeaseState.ROTATING : LeaseState.ACQUIRING;
		this.s.sentUnder = (this.token != null) ? this.token.generation() : 0;
		send(Op.ACQUIRE, this.now.plus(this.schedule.attemptTimeout(this.now, null, this.s.fullTtl)));
	}

	/**
	 * Whether the token this lease depends on holds a grant still valid now.
	 */
	private boolean tokenUsable(TokenView token) {
		Instant validUntil = token.validUntil();
		return token.holds() && (validUntil == null || this.now.isBefore(validUntil));
	}

	void renewOrReplace() {
		Held held = this.s.held;
		if (held != null && usableHeldExpired() && held.grant().renewable()) {
			// its validity passed before its timer fired: one authoritative attempt
			this.s.state = LeaseState.EXPIRED;
			send(Op.RENEW, this.now.plus(this.schedule.budget(window()).attemptTimeout()));
		}
		else if (held != null && usable() && held.grant().renewable()) {
			this.s.state = (this.s.failures > 0) ? LeaseState.RETRYING : LeaseState.RENEWING;
			send(Op.RENEW, this.now.plus(this.schedule.attemptTimeout(this.now, held.validUntil(), window())));
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
			this.s.held = this.s.held.withRenewalSentAt(this.now, this.schedule);
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
	 * A grant held under a token that has been replaced dies with that token: move it,
	 * whatever input brought the lease here (a renewal answered after the news, say).
	 */
	void followToken() {
		Held held = this.s.held;
		if (this.token == null || held == null || !this.token.holds() || !this.s.state.holdsGrant()
				|| held.tokenGeneration() >= this.token.generation() || this.s.state == LeaseState.ROTATING
				|| this.s.next == Next.ACQUIRE || this.s.pending == Op.ACQUIRE) {
			// already moving, or its next acquisition planned
			return;
		}
		replaceForToken();
	}

	/**
	 * Move a grant held under a replaced (still valid) token to the new one at an instant
	 * drawn over the first half of the time it has left, so that a token's dependents do
	 * not all ask at once; the other half is left for retries. An operation in flight
	 * first, and with under two seconds left at once.
	 */
	void replaceForToken() {
		Held held = this.s.held;
		this.s.cause = RotationCause.TOKEN;
		if (this.s.inFlight != null) {
			this.s.pending = Op.ACQUIRE;
			return;
		}
		Duration half = (held != null) ? Duration.between(this.now, held.validUntil()).dividedBy(2) : Duration.ZERO;
		if (half.compareTo(Duration.ofSeconds(1)) < 0) {
			acquire(RotationCause.TOKEN);
			return;
		}
		plan(Next.ACQUIRE, this.now.plusNanos((long) (random().nextDouble() * half.toNanos())));
	}

	/**
	 * The token's renewal moved the validity on: an action that was only capped at the
	 * old validity goes back to its own instant.
	 */
	void replanCappedAction() {
		Held held = this.s.held;
		if (held == null || this.s.inFlight != null || this.s.next != Next.EXPIRE || this.s.failures > 0) {
			return;
		}
		if (this.s.state == LeaseState.ACTIVE) {
			planRenewal(this.schedule.nextRenewal(held.grant(), random()));
		}
		else if (this.s.state == LeaseState.CEILING) {
			// a slot rotation keeps its slot: where the next renewal would have been
			plan(Next.ACQUIRE, this.schedule.nextRenewal(held.grant(), random()));
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
		// the grant's own expiry: its max TTL, whatever its token does
		Instant expiry = held.grantExpiry();
		ceiling(held, (expiry != null) ? expiry : this.now);
	}

	void ceiling(Held held, Instant hardExpiry) {
		if (this.s.ceilingReportedFor == held.generation()) {
			return;
		}
		this.s.ceilingReportedFor = held.generation();
		this.effects.add(new LeaseEffect.CeilingReached(hardExpiry));
	}

	/**
	 * Plan the next renewal at {@code at}, or, when the ceiling of the generation held is
	 * known and a renewal then would come back capped, the acquisition of the next
	 * generation at that same instant (slot rotation): the lease keeps its cadence and a
	 * full renewal's outage budget.
	 */
	void planRenewal(Instant at) {
		Instant ceiling = predictedCeiling();
		Duration full = this.s.fullTtl;
		if (this.settings.onCeiling() == CeilingAction.ROTATE && ceiling != null && full != null
				&& Duration.between(at, ceiling).compareTo(full) < 0 && !checksLearntCeiling()) {
			this.s.state = LeaseState.CEILING;
			this.s.cause = RotationCause.CEILING;
			// reported when the slot comes, as a capped answer would have been
			plan(Next.ACQUIRE, at);
			return;
		}
		plan(Next.RENEW, at);
	}

	/**
	 * Whether the generation held renews in its ceiling slot instead of rotating, to see
	 * whether the max TTL learnt still holds: every {@link #CEILING_CHECK_EVERY}th
	 * generation of a lease whose max TTL was learnt. A capped answer rotates the lease
	 * at that same instant (one request more); an answer that outlives the ceiling
	 * predicted shows the max TTL raised (an operator changed the role), and it is learnt
	 * again at the next capped answer. Without it, every generation would rotate at the
	 * old max TTL until the application restarts.
	 */
	boolean checksLearntCeiling() {
		Held held = this.s.held;
		return this.s.maxTtl != null && held != null && held.generation() % CEILING_CHECK_EVERY == 0;
	}

	/**
	 * A renewal's answer that outlives the ceiling predicted from the max TTL learnt:
	 * that max TTL was raised since, and is forgotten (learnt again at the next capped
	 * answer).
	 * @param grant the answer, not capped
	 */
	void forgetOutlivedCeiling(Grant grant) {
		Instant ceiling = (this.s.maxTtl != null) ? predictedCeiling() : null;
		Instant expiry = grant.expiry();
		if (ceiling != null && expiry != null && expiry.isAfter(ceiling.plus(Held.STORE_GRANULARITY))) {
			this.s.maxTtl = null;
		}
	}

	/**
	 * The ceiling of the generation held: its start plus the max TTL learnt (else the one
	 * declared), if known.
	 */
	@Nullable Instant predictedCeiling() {
		Instant start = this.s.generationStart;
		Duration max = (this.s.maxTtl != null) ? this.s.maxTtl : this.settings.maxTtl();
		return (start != null && max != null) ? start.plus(max) : null;
	}

	/**
	 * Warn once about a renewal window too short to keep; a credential read again on its
	 * own schedule (a static role, a fleet's published grant) is never renewed, so what
	 * is left of it is not such a window.
	 */
	void checkWindow() {
		Held held = this.s.held;
		if (held != null && held.grant().refreshAfter() != null) {
			return;
		}
		Duration window = window();
		if (!this.s.shortWindowReported && window != null && this.schedule.windowTooShort(window)) {
			this.s.shortWindowReported = true;
			this.effects.add(new LeaseEffect.WindowTooShort(window));
		}
	}

	Instant notBeforeRelogin(Instant at) {
		Instant last = this.s.generationStart;
		if (this.settings.dependent() || last == null) {
			return at;
		}
		Instant earliest = last.plus(this.schedule.reloginInterval(this.s.fullTtl));
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
		Duration window = (held != null) ? held.window() : null;
		return (window != null) ? window : this.s.fullTtl;
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
		return this.random;
	}

}
