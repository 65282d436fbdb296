package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The state machine of one lease: obtains a grant, renews it on its
 * {@link RenewalSchedule}, retries transient failures within the grant's budget, rotates
 * to a replacement at the ceiling or after a refusal, and revokes what it holds when
 * stopped.
 * <p>
 * Every change of state happens on the {@link LeaseScheduler}'s scheduling thread, so
 * operations of one lease are serialized without locks: at most one call to the store is
 * in flight for it, and an answer to an attempt that was abandoned (timed out, or
 * overtaken by a newer generation) never overwrites what the lease holds. Reads
 * ({@link #current()}, {@link #requireValidFor(Duration)}) see an immutable snapshot from
 * any thread.
 * <p>
 * A lease may depend on a token lease: its effective expiry is then the earlier of its
 * own and its token's; when the token is replaced it is obtained again under the new one,
 * and when the token is lost it is lost too.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class ManagedLease implements LeaseRenewer {

	private static final Log logger = LogFactory.getLog(ManagedLease.class);

	private final String name;

	private final LeaseSource source;

	private final LeaseScheduler scheduler;

	private final RenewalSchedule schedule;

	private final @Nullable Duration increment;

	private final CeilingAction onCeiling;

	private final boolean reacquireOnLoss;

	private final boolean revokeReplaced;

	private final List<LeaseListener> listeners;

	private final RandomGenerator random;

	private final @Nullable ManagedLease token;

	private final List<ManagedLease> dependents = new CopyOnWriteArrayList<>();

	private final CompletableFuture<LeaseSnapshot> firstGrant = new CompletableFuture<>();

	// Everything below is read and written on the scheduling thread only.

	private LeaseState state = LeaseState.NEW;

	private int generation;

	private @Nullable Held held;

	private @Nullable Duration fullTtl;

	private int ceilingReportedFor;

	private boolean shortWindowReported;

	private @Nullable Cancellable timer;

	private @Nullable Instant nextActionAt;

	private @Nullable Action pending;

	private long attemptSequence;

	private long inFlight;

	private boolean inFlightAbandonable;

	private @Nullable BackOffExecution backOff;

	private int failures;

	private RotationCause rotationCause = RotationCause.CEILING;

	private boolean needsNewGrant;

	private boolean waitingForToken;

	private int reauthenticationRequestedFor = -1;

	private @Nullable Held awaitingRelease;

	private boolean releasing;

	private boolean refusalReported;

	private boolean stopped;

	private volatile LeaseSnapshot snapshot;

	private volatile @Nullable String lastErrorClass;

	private ManagedLease(Builder builder) {
		this.name = builder.name;
		this.source = builder.source;
		this.scheduler = builder.scheduler;
		this.schedule = new RenewalSchedule(builder.policy);
		this.increment = builder.increment;
		this.onCeiling = builder.onCeiling;
		this.reacquireOnLoss = builder.reacquireOnLoss;
		this.revokeReplaced = builder.revokeReplaced;
		this.listeners = List.copyOf(builder.listeners);
		this.random = builder.random;
		this.token = builder.token;
		this.snapshot = new LeaseSnapshot(this.name, 0, null, LeaseState.NEW, null, null, null, null, null, Map.of());
		if (this.token != null) {
			this.token.dependents.add(this);
		}
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
		return this.name;
	}

	@Override
	public String describe() {
		return this.source.describe();
	}

	@Override
	public LeaseSnapshot current() {
		return this.snapshot;
	}

	@Override
	public LeaseSnapshot requireValidFor(Duration duration) {
		LeaseSnapshot current = this.snapshot;
		if (!current.isValidFor(this.scheduler.now(), duration)) {
			throw new LeaseExpiredException(current,
					"Lease '" + this.name + "' (generation " + current.generation() + ", state " + current.state()
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
		return this.token;
	}

	/**
	 * Return the error class of the last failed attempt, for start-up diagnostics.
	 * @return the error class, or {@code null} if no attempt failed
	 */
	public @Nullable String getLastErrorClass() {
		return this.lastErrorClass;
	}

	/**
	 * Return a future that completes with the first grant, or exceptionally with the
	 * failure if the store refused it permanently.
	 * @return the future
	 */
	public CompletableFuture<LeaseSnapshot> firstGrant() {
		return this.firstGrant;
	}

	/**
	 * Start the lease: obtain its first grant (once its token, if any, holds one).
	 */
	public void start() {
		onLoop(() -> {
			if (this.state == LeaseState.NEW) {
				this.state = LeaseState.ACQUIRING;
				acquire();
			}
		});
	}

	@Override
	public void renewNow() {
		onLoop(() -> {
			if (this.held != null && this.state.holdsGrant() && this.state != LeaseState.ROTATING) {
				command(Action.RENEW);
			}
		});
	}

	@Override
	public void rotateNow(RotationCause cause) {
		onLoop(() -> {
			if (!this.stopped && this.state != LeaseState.NEW) {
				this.rotationCause = cause;
				command(Action.ACQUIRE);
			}
		});
	}

	/**
	 * Stop the lease: cancel what is scheduled and, if asked, revoke the grant held.
	 * @param revoke whether to revoke the grant
	 * @return a future that completes when the lease is stopped (a failed revocation is
	 * logged, never thrown)
	 */
	public CompletableFuture<Void> stop(boolean revoke) {
		CompletableFuture<Void> done = new CompletableFuture<>();
		onLoop(() -> {
			if (this.stopped) {
				done.complete(null);
				return;
			}
			this.stopped = true;
			cancelTimer();
			this.pending = null;
			this.inFlight = 0;
			Held current = this.held;
			List<Grant> toRevoke = new ArrayList<>();
			if (revoke && current != null && this.state.holdsGrant()) {
				toRevoke.add(current.grant());
			}
			if (revoke && this.awaitingRelease != null) {
				toRevoke.add(this.awaitingRelease.grant());
				this.awaitingRelease = null;
			}
			this.state = LeaseState.REVOKED;
			this.scheduler.call(() -> {
				for (Grant grant : toRevoke) {
					this.source.revoke(grant);
				}
				return null;
			}, (result, failure) -> {
				if (failure != null) {
					logger.warn(describe(current) + ": revocation on shutdown failed (" + errorClass(failure)
							+ "); its TTL will end it");
				}
				else if (!toRevoke.isEmpty()) {
					logger.info(describe(current) + ": revoked on shutdown");
				}
				publish();
				LeaseSnapshot stoppedSnapshot = this.snapshot;
				notifyListeners(
						(listener) -> listener.onStopped(stoppedSnapshot, failure == null && !toRevoke.isEmpty()));
				done.complete(null);
			});
		});
		return done;
	}

	// --- scheduling
	// -------------------------------------------------------------------------------------

	private void onLoop(Runnable task) {
		this.scheduler.schedule(Instant.MIN, () -> {
			task.run();
			publish();
		});
	}

	private void arm(Instant at, Action action) {
		cancelTimer();
		this.nextActionAt = at;
		this.timer = this.scheduler.schedule(at, () -> {
			this.timer = null;
			fire(action);
			publish();
		});
	}

	private void cancelTimer() {
		if (this.timer != null) {
			this.timer.cancel();
			this.timer = null;
		}
		this.nextActionAt = null;
	}

	private void fire(Action action) {
		this.nextActionAt = null;
		if (this.stopped) {
			return;
		}
		if (action == Action.EXPIRE) {
			expire(LeaseLossReason.EXPIRED, this.lastErrorClass);
		}
		else if (this.inFlight != 0) {
			this.pending = action;
		}
		else {
			perform(action);
		}
	}

	private void command(Action action) {
		if (this.inFlight != 0) {
			// a replacement asked for is never downgraded to a renewal
			this.pending = (this.pending == Action.ACQUIRE) ? Action.ACQUIRE : action;
			return;
		}
		cancelTimer();
		perform(action);
	}

	private void perform(Action action) {
		if (action == Action.RENEW && !this.needsNewGrant && this.held != null && this.held.grant().renewable()) {
			renew();
		}
		else {
			acquire();
		}
	}

	private void runPending() {
		Action action = this.pending;
		if (action != null && this.inFlight == 0 && !this.stopped) {
			this.pending = null;
			cancelTimer();
			perform(action);
		}
	}

	/**
	 * Run one call to the store as this lease's single operation in flight, abandoning it
	 * after {@code timeout}. An answer to an abandoned attempt goes to {@code onStale}.
	 */
	private <T> void attempt(Duration timeout, Callable<T> call, Consumer<T> onSuccess,
			Consumer<LeaseSourceException> onFailure, Consumer<T> onStale) {
		long id = ++this.attemptSequence;
		this.inFlight = id;
		this.inFlightAbandonable = true;
		Cancellable watchdog = this.scheduler.schedule(this.scheduler.now().plus(timeout), () -> {
			if (this.inFlight == id) {
				this.inFlight = 0;
				onFailure.accept(LeaseSourceException.transientFailure("timeout", "no answer within " + timeout, null));
				runPending();
				publish();
			}
		});
		this.scheduler.call(call, (result, failure) -> {
			if (this.inFlight != id || this.stopped) {
				if (result != null) {
					onStale.accept(result);
				}
				return;
			}
			watchdog.cancel();
			this.inFlight = 0;
			if (failure == null && result != null) {
				onSuccess.accept(result);
			}
			else {
				onFailure.accept(classify(failure));
			}
			runPending();
			publish();
		});
	}

	/**
	 * Run a call to a consumer or a release as this lease's operation in flight, with no
	 * timeout: a consumer that is still swapping must not be overtaken.
	 */
	private void exclusive(Callable<@Nullable Void> call, Consumer<@Nullable Exception> then) {
		long id = ++this.attemptSequence;
		this.inFlight = id;
		this.inFlightAbandonable = false;
		this.scheduler.call(call, (result, failure) -> {
			if (this.inFlight == id) {
				this.inFlight = 0;
			}
			then.accept(failure);
			runPending();
			publish();
		});
	}

	// --- acquisition and rotation
	// ----------------------------------------------------------------------

	private void acquire() {
		if (this.stopped) {
			return;
		}
		if (this.token != null && !this.token.state.holdsGrant()) {
			// obtained under a token that is being replaced, it would die with it
			this.waitingForToken = true;
			return;
		}
		Held previous = usable(this.held);
		this.state = (previous != null) ? LeaseState.ROTATING : LeaseState.ACQUIRING;
		Instant deadline = (previous != null) ? previous.validUntil() : null;
		int tokenGeneration = (this.token != null) ? this.token.generation : 0;
		attempt(this.schedule.attemptTimeout(this.scheduler.now(), deadline), this.source::acquire,
				(grant) -> offer(grant, previous, tokenGeneration),
				(failure) -> acquisitionFailed(failure, previous, tokenGeneration), this::revokeQuietly);
	}

	private void offer(Grant grant, @Nullable Held previous, int tokenGeneration) {
		Instant tokenExpiry = (this.token != null && this.token.held != null) ? this.token.held.expiry() : null;
		Held candidate = new Held(grant, this.generation + 1, tokenGeneration, tokenExpiry, null,
				this.schedule.policy().expiryBuffer());
		LeaseSnapshot candidateSnapshot = snapshotOf(candidate, LeaseState.ACTIVE, null);
		LeaseSnapshot previousSnapshot = (previous != null) ? this.snapshot : null;
		exclusive(() -> {
			for (LeaseListener listener : this.listeners) {
				listener.accept(candidateSnapshot, previousSnapshot);
			}
			return null;
		}, (rejection) -> {
			if (this.stopped) {
				revokeQuietly(grant);
			}
			else if (rejection == null) {
				install(candidate, previous);
			}
			else {
				rejected(candidate, previous, rejection, tokenGeneration);
			}
		});
	}

	private void rejected(Held candidate, @Nullable Held previous, Exception rejection, int tokenGeneration) {
		logger.error(describe(candidate) + ": a consumer rejected the new grant (" + rejection.getMessage()
				+ "); keeping generation " + this.generation + " and revoking the rejected grant");
		LeaseSnapshot current = this.snapshot;
		notifyListeners((listener) -> listener.onReplacementRejected(current, rejection));
		exclusive(() -> {
			this.source.revoke(candidate.grant());
			return null;
		}, (failure) -> acquisitionFailed(LeaseSourceException.transientFailure("rejected-by-consumer",
				"a consumer rejected the new grant", rejection), previous, tokenGeneration));
	}

	private void install(Held next, @Nullable Held previous) {
		Held replaced = this.held;
		int previousGeneration = this.generation;
		this.generation = next.generation();
		this.held = next;
		this.fullTtl = next.grant().ttl();
		resetFailures();
		this.needsNewGrant = false;
		this.refusalReported = false;
		if (this.token == null || next.tokenGeneration() == this.token.generation) {
			// what was asked for while the grant was being obtained is satisfied by it
			this.pending = null;
		}
		Grant grant = next.grant();
		if (!grant.expires()) {
			this.state = LeaseState.ACTIVE;
			cancelTimer();
			logger.info(describe(next) + ": the grant does not expire; nothing to renew");
		}
		else if (!grant.renewable()) {
			// every grant is at its ceiling: replace it where it would be renewed, spread
			// like a first renewal
			// only for the first grant, whose phase later grants keep
			this.state = LeaseState.CEILING;
			this.rotationCause = RotationCause.CEILING;
			arm((next.generation() == 1) ? this.schedule.firstRenewal(grant, this.random)
					: this.schedule.nextRenewal(grant, this.random), Action.ACQUIRE);
		}
		else {
			this.state = LeaseState.ACTIVE;
			arm(this.schedule.firstRenewal(grant, this.random), Action.RENEW);
			warnIfWindowTooShort(grant);
		}
		publish();
		LeaseSnapshot installed = this.snapshot;
		if (!grant.renewable() && grant.expires()) {
			reportCeiling(next);
		}
		if (previousGeneration == 0) {
			logger.info(describe(next) + ": obtained, expires " + next.expiry());
			this.firstGrant.complete(installed);
			notifyListeners((listener) -> listener.onAcquired(installed));
		}
		else {
			RotationCause cause = (previous != null) ? this.rotationCause : RotationCause.LOST;
			logger.info(describe(next) + ": rotated from generation " + previousGeneration + " (" + cause
					+ "), expires " + next.expiry());
			notifyListeners((listener) -> listener.onRotated(installed, previousGeneration, cause));
		}
		for (ManagedLease dependent : this.dependents) {
			dependent.tokenReplaced(this.generation);
		}
		if (replaced != null) {
			release(replaced);
		}
		else if (this.token != null) {
			this.token.dependentMoved();
		}
	}

	private void release(Held replaced) {
		LeaseSnapshot releasing = snapshotOf(replaced, LeaseState.REVOKED, null);
		boolean revoke = this.revokeReplaced && !this.dependents.isEmpty();
		this.releasing = true;
		exclusive(() -> {
			for (LeaseListener listener : this.listeners) {
				listener.release(releasing);
			}
			if (this.revokeReplaced && this.dependents.isEmpty()) {
				this.source.revoke(replaced.grant());
			}
			return null;
		}, (failure) -> {
			this.releasing = false;
			if (failure != null) {
				logger.warn(describe(replaced) + ": releasing the replaced grant failed (" + errorClass(failure)
						+ "); its TTL will end it");
			}
			if (this.token != null) {
				this.token.dependentMoved();
			}
			if (revoke) {
				// a token is revoked only once every lease obtained under it has moved
				// on: revoking it
				// revokes them
				this.awaitingRelease = replaced;
				dependentMoved();
			}
		});
	}

	private void acquisitionFailed(LeaseSourceException failure, @Nullable Held previous, int tokenGeneration) {
		recordFailure(failure);
		if (previous != null && usable(this.held) == null && this.state.holdsGrant()) {
			// the last attempt that could replace the grant in time has failed
			expire(LeaseLossReason.EXPIRED, failure.getErrorClass());
			return;
		}
		if (failure.getKind() == LeaseSourceException.Kind.UNAUTHORIZED && this.token != null) {
			this.token.reauthenticate(tokenGeneration);
		}
		boolean refused = failure.getKind() != LeaseSourceException.Kind.TRANSIENT
				&& !(failure.getKind() == LeaseSourceException.Kind.UNAUTHORIZED && this.token != null);
		if (refused && this.generation == 0) {
			this.firstGrant.completeExceptionally(failure);
		}
		Held current = usable(this.held);
		Optional<Instant> next = this.schedule.retry(backOff(), this.random, this.scheduler.now(),
				(current != null) ? current.validUntil() : null);
		boolean retry = current != null || this.reacquireOnLoss || this.generation == 0 && !refused;
		Instant nextAttempt = (retry) ? next.orElse(null) : null;
		logger.warn(describe(current) + ": obtaining a " + ((current != null) ? "replacement" : "grant") + " failed ("
				+ failure.getErrorClass() + ": " + failure.getMessage() + "), attempt " + this.failures
				+ ((nextAttempt != null) ? ", next attempt at " + nextAttempt : ", no further attempt"));
		LeaseSnapshot now = this.snapshot;
		int attempt = this.failures;
		notifyListeners((listener) -> listener.onFailure(now, failure, attempt, nextAttempt));
		if (current == null && refused) {
			this.state = LeaseState.LOST;
			if (!this.refusalReported) {
				// once per loss, not at every attempt to obtain the lease again
				this.refusalReported = true;
				publish();
				LeaseSnapshot lost = this.snapshot;
				notifyListeners((listener) -> listener.onLost(lost, LeaseLossReason.REFUSED, failure.getErrorClass()));
			}
		}
		if (nextAttempt != null) {
			arm(nextAttempt, Action.ACQUIRE);
		}
		else if (current != null) {
			arm(current.validUntil(), Action.EXPIRE);
		}
	}

	// --- renewal
	// ------------------------------------------------------------------------------------

	private void renew() {
		Held current = usable(this.held);
		if (current == null) {
			return;
		}
		Instant now = this.scheduler.now();
		if (!now.isBefore(current.validUntil())) {
			expire(LeaseLossReason.EXPIRED, this.lastErrorClass);
			return;
		}
		this.state = (this.failures > 0) ? LeaseState.RETRYING : LeaseState.RENEWING;
		attempt(this.schedule.attemptTimeout(now, current.validUntil()),
				() -> this.source.renew(current.grant(), this.increment), (grant) -> renewed(current, grant, now),
				(failure) -> renewalFailed(current, failure),
				(stale) -> logger.debug(describe(current) + ": ignoring the late answer to an abandoned renewal"));
	}

	private void renewed(Held previous, Grant answer, Instant sentAt) {
		Grant grant = answer.data().isEmpty() ? answer.withData(previous.grant().data()) : answer;
		Held next = previous.withGrant(grant);
		int attempts = this.failures + 1;
		resetFailures();
		boolean capped = this.schedule.showsCeiling(grant, this.increment, this.fullTtl);
		if (!capped) {
			this.fullTtl = grant.ttl();
		}
		this.held = next;
		if (!grant.expires()) {
			this.state = LeaseState.ACTIVE;
			cancelTimer();
		}
		else if (capped && this.onCeiling == CeilingAction.ROTATE) {
			this.state = LeaseState.CEILING;
			this.rotationCause = RotationCause.CEILING;
			arm(this.schedule.rotation(grant, this.random, this.scheduler.now()), Action.ACQUIRE);
		}
		else {
			this.state = LeaseState.ACTIVE;
			arm(this.schedule.nextRenewal(grant, this.random), Action.RENEW);
		}
		publish();
		Duration remaining = Duration.between(sentAt, orNow(previous.expiry()));
		LeaseRenewal renewal = new LeaseRenewal(this.snapshot, previous.expiry(), next.expiry(), grant.ttl(),
				remaining.isNegative() ? Duration.ZERO : remaining, attempts, capped);
		if (logger.isDebugEnabled()) {
			logger.debug(describe(next) + ": renewed, expiry " + previous.expiry() + " -> " + next.expiry()
					+ ", granted " + grant.ttl() + ", remaining at attempt " + remaining + ", attempts " + attempts);
		}
		notifyListeners((listener) -> listener.onRenewed(renewal));
		if (capped) {
			reportCeiling(next);
		}
		for (ManagedLease dependent : this.dependents) {
			dependent.tokenRenewed(this.generation, next.expiry());
		}
	}

	private void renewalFailed(Held current, LeaseSourceException failure) {
		recordFailure(failure);
		LeaseSourceException.Kind kind = failure.getKind();
		if (kind == LeaseSourceException.Kind.PERMANENT) {
			logger.warn(describe(current) + ": renewal refused (" + failure.getErrorClass() + ": "
					+ failure.getMessage() + "); obtaining a replacement now");
			notifyFailure(failure, this.scheduler.now());
			if (failure.isCredentialGone()) {
				lose(current, LeaseLossReason.REVOKED, failure.getErrorClass());
			}
			else {
				reportCeiling(current);
				this.rotationCause = RotationCause.REFUSED;
				acquire();
			}
			return;
		}
		if (kind == LeaseSourceException.Kind.UNAUTHORIZED && this.token == null) {
			logger.warn(describe(current) + ": renewal unauthorized (" + failure.getErrorClass()
					+ "); authenticating again now");
			notifyFailure(failure, this.scheduler.now());
			lose(current, LeaseLossReason.UNAUTHORIZED, failure.getErrorClass());
			return;
		}
		if (kind == LeaseSourceException.Kind.UNAUTHORIZED) {
			// the token behind the call is gone: ask it to authenticate again; the next
			// attempt obtains a
			// new grant under the new token
			this.needsNewGrant = true;
			this.rotationCause = RotationCause.TOKEN;
			this.token.reauthenticate(current.tokenGeneration());
		}
		this.state = LeaseState.RETRYING;
		Optional<Instant> next = this.schedule.retry(backOff(), this.random, this.scheduler.now(),
				current.validUntil());
		logger.warn(describe(current) + ": renewal failed (" + failure.getErrorClass() + ": " + failure.getMessage()
				+ "), attempt " + this.failures + ", "
				+ next.map((at) -> "next attempt at " + at).orElse("no attempt fits before " + current.validUntil())
				+ "; check that Vault is reachable");
		notifyFailure(failure, next.orElse(null));
		if (next.isPresent()) {
			arm(next.get(), Action.RENEW);
		}
		else {
			arm(current.validUntil(), Action.EXPIRE);
		}
	}

	// --- loss
	// ---------------------------------------------------------------------------------------

	private void expire(LeaseLossReason reason, @Nullable String errorClass) {
		Held current = this.held;
		if (current == null || !this.state.holdsGrant() || this.stopped) {
			return;
		}
		logger.error(describe(current) + ": expired without a confirmed renewal (valid until " + current.validUntil()
				+ ", last error " + errorClass + ")");
		cancelTimer();
		abandonAttempt();
		this.held = current.goneAt(this.scheduler.now());
		this.state = LeaseState.EXPIRED;
		afterLoss(reason, errorClass);
	}

	private void lose(Held current, LeaseLossReason reason, String errorClass) {
		logger.error(describe(current) + ": lost (" + reason + ", " + errorClass + ")");
		cancelTimer();
		abandonAttempt();
		this.held = current.goneAt(this.scheduler.now());
		this.state = LeaseState.LOST;
		afterLoss(reason, errorClass);
	}

	private void abandonAttempt() {
		// a renewal still in flight can no longer save the grant: its answer will be
		// ignored
		if (this.inFlight != 0 && this.inFlightAbandonable) {
			this.inFlight = 0;
		}
	}

	private void afterLoss(LeaseLossReason reason, @Nullable String errorClass) {
		this.refusalReported = true;
		publish();
		LeaseSnapshot lost = this.snapshot;
		notifyListeners((listener) -> listener.onLost(lost, reason, errorClass));
		for (ManagedLease dependent : this.dependents) {
			dependent.tokenLost(this.generation);
		}
		if (this.reacquireOnLoss) {
			resetFailures();
			this.rotationCause = RotationCause.LOST;
			command(Action.ACQUIRE);
		}
	}

	// --- the token this lease depends on, and the leases that depend on this one
	// -----------------------

	private void tokenRenewed(int tokenGeneration, @Nullable Instant tokenExpiry) {
		if (this.held != null && this.held.tokenGeneration() == tokenGeneration) {
			this.held = this.held.withTokenExpiry(tokenExpiry);
			publish();
		}
	}

	private void tokenReplaced(int tokenGeneration) {
		if (this.stopped) {
			return;
		}
		if (this.waitingForToken) {
			this.waitingForToken = false;
			acquire();
		}
		else if (this.held != null && this.held.tokenGeneration() < tokenGeneration && this.state.holdsGrant()) {
			if (this.failures == 0 && this.state != LeaseState.ROTATING) {
				this.rotationCause = RotationCause.TOKEN;
				command(Action.ACQUIRE);
			}
			else {
				this.needsNewGrant = true;
				this.rotationCause = RotationCause.TOKEN;
			}
		}
		publish();
	}

	private void tokenLost(int tokenGeneration) {
		if (this.held != null && this.held.tokenGeneration() <= tokenGeneration && this.state.holdsGrant()) {
			expire(LeaseLossReason.EXPIRED, "token-lost");
			publish();
		}
	}

	private void reauthenticate(int tokenGeneration) {
		if (tokenGeneration == this.generation && this.reauthenticationRequestedFor != tokenGeneration
				&& this.state.holdsGrant() && this.state != LeaseState.ROTATING && !this.stopped) {
			this.reauthenticationRequestedFor = tokenGeneration;
			logger.info(describe(this.held) + ": a call made with this token was refused; authenticating again");
			this.rotationCause = RotationCause.REFUSED;
			command(Action.ACQUIRE);
		}
	}

	private void dependentMoved() {
		Held replaced = this.awaitingRelease;
		if (replaced == null) {
			return;
		}
		for (ManagedLease dependent : this.dependents) {
			if (dependent.releasing || dependent.held != null && dependent.state.holdsGrant()
					&& dependent.held.tokenGeneration() < this.generation) {
				return;
			}
		}
		this.awaitingRelease = null;
		this.scheduler.call(() -> {
			this.source.revoke(replaced.grant());
			return null;
		}, (result, failure) -> {
			if (failure != null) {
				logger.warn(describe(replaced) + ": revoking the replaced token failed (" + errorClass(failure)
						+ "); its TTL will end it");
			}
		});
	}

	// --- helpers
	// ------------------------------------------------------------------------------------

	private void reportCeiling(Held current) {
		if (this.ceilingReportedFor == current.generation()) {
			return;
		}
		this.ceilingReportedFor = current.generation();
		Instant hardExpiry = orNow(current.expiry());
		logger.info(describe(current) + ": reached its ceiling, hard expiry " + hardExpiry + "; "
				+ ((this.onCeiling == CeilingAction.ROTATE) ? "rotating at " + this.nextActionAt : "notifying only"));
		LeaseSnapshot now = this.snapshot;
		notifyListeners((listener) -> listener.onCeilingReached(now, hardExpiry, this.onCeiling));
	}

	private void warnIfWindowTooShort(Grant grant) {
		if (!this.shortWindowReported && this.schedule.windowTooShort(grant)) {
			this.shortWindowReported = true;
			logger.warn("Lease '" + this.name + "': its window of " + grant.ttl()
					+ " leaves less after renew-at than the expiry buffer, one attempt timeout and one retry"
					+ " interval; lower renew-at or ask for a longer TTL");
		}
	}

	private BackOffExecution backOff() {
		if (this.backOff == null) {
			this.backOff = this.schedule.startBackOff();
		}
		return this.backOff;
	}

	private void recordFailure(LeaseSourceException failure) {
		this.failures++;
		this.lastErrorClass = failure.getErrorClass();
	}

	private void resetFailures() {
		this.failures = 0;
		this.backOff = null;
	}

	private void notifyFailure(LeaseSourceException failure, @Nullable Instant nextAttempt) {
		publish();
		LeaseSnapshot now = this.snapshot;
		int attempt = this.failures;
		notifyListeners((listener) -> listener.onFailure(now, failure, attempt, nextAttempt));
	}

	private void revokeQuietly(Grant grant) {
		this.scheduler.call(() -> {
			this.source.revoke(grant);
			return null;
		}, (result, failure) -> logger.debug("Lease '" + this.name + "': revoked a grant that arrived too late"));
	}

	private void notifyListeners(Consumer<LeaseListener> notification) {
		for (LeaseListener listener : this.listeners) {
			try {
				notification.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Lease '" + this.name + "': listener " + listener.getClass().getName() + " failed", ex);
			}
		}
	}

	private @Nullable Held usable(@Nullable Held candidate) {
		return (candidate != null && this.state.holdsGrant() && this.scheduler.now().isBefore(candidate.validUntil()))
				? candidate : null;
	}

	private Instant orNow(@Nullable Instant instant) {
		return (instant != null) ? instant : this.scheduler.now();
	}

	private void publish() {
		this.snapshot = (this.held != null) ? snapshotOf(this.held, this.state, this.nextActionAt) : new LeaseSnapshot(
				this.name, this.generation, null, this.state, null, null, null, null, this.nextActionAt, Map.of());
	}

	private LeaseSnapshot snapshotOf(Held lease, LeaseState state, @Nullable Instant nextAction) {
		Grant grant = lease.grant();
		boolean valid = state.holdsGrant();
		return new LeaseSnapshot(this.name, lease.generation(), grant.leaseId(), state, grant.obtainedAt(), grant.ttl(),
				lease.expiry(), lease.validUntilOrNull(), nextAction, valid ? grant.data() : Map.of());
	}

	private String describe(@Nullable Held lease) {
		if (lease == null) {
			return "Lease '" + this.name + "' (" + this.source.describe() + ")";
		}
		return "Lease '" + this.name + "' generation " + lease.generation() + " ("
				+ Redaction.maskLeaseId(lease.grant().leaseId()) + ")";
	}

	private static String errorClass(Exception failure) {
		return classify(failure).getErrorClass();
	}

	private static LeaseSourceException classify(@Nullable Exception failure) {
		if (failure instanceof LeaseSourceException sourceException) {
			return sourceException;
		}
		// an unexpected exception (a malformed answer): retry, never let it stop the
		// lease
		String type = (failure != null) ? failure.getClass().getSimpleName() : "null-answer";
		return LeaseSourceException.transientFailure("unexpected-" + type,
				"unexpected failure of the lease source: " + type, failure);
	}

	private enum Action {

		RENEW, ACQUIRE, EXPIRE

	}

	/**
	 * A grant as the lease holds it: with its generation, the token generation and expiry
	 * it depends on, and when the store said it is gone.
	 */
	private record Held(Grant grant, int generation, int tokenGeneration, @Nullable Instant tokenExpiry,
			@Nullable Instant goneAt, Duration expiryBuffer) {

		@Nullable Instant expiry() {
			Instant own = this.grant.expiry();
			if (own == null) {
				return this.tokenExpiry;
			}
			return (this.tokenExpiry != null && this.tokenExpiry.isBefore(own)) ? this.tokenExpiry : own;
		}

		@Nullable Instant validUntilOrNull() {
			Instant expiry = expiry();
			Instant until = (expiry != null) ? expiry.minus(this.expiryBuffer) : null;
			if (this.goneAt != null && (until == null || this.goneAt.isBefore(until))) {
				return this.goneAt;
			}
			return until;
		}

		Instant validUntil() {
			Instant until = validUntilOrNull();
			return (until != null) ? until : Instant.MAX;
		}

		Held withGrant(Grant renewed) {
			return new Held(renewed, this.generation, this.tokenGeneration, this.tokenExpiry, this.goneAt,
					this.expiryBuffer);
		}

		Held withTokenExpiry(@Nullable Instant expiry) {
			return new Held(this.grant, this.generation, this.tokenGeneration, expiry, this.goneAt, this.expiryBuffer);
		}

		Held goneAt(Instant instant) {
			return new Held(this.grant, this.generation, this.tokenGeneration, this.tokenExpiry, instant,
					this.expiryBuffer);
		}

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

		private RandomGenerator random = new SplittableRandom();

		private @Nullable ManagedLease token;

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
		 * Build the lease; it does nothing until {@link ManagedLease#start()}.
		 * @return the lease
		 */
		public ManagedLease build() {
			return new ManagedLease(this);
		}

	}

}
