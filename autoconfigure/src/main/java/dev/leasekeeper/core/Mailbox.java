package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

import dev.leasekeeper.core.LeaseMachine.Op;

/**
 * Runs one lease on the scheduling thread: takes its inputs one at a time (an input that
 * arrives while another is applied waits its turn), applies each to the
 * {@link LeaseMachine}, publishes the snapshot, runs the effects and keeps the lease's
 * one timer armed at the instant the state asks for. Calls to the store carry the number
 * of their attempt: an answer to an attempt that is no longer the one in flight is
 * dropped, and a grant it brought is revoked.
 *
 * @author Leasekeeper
 */
final class Mailbox implements Runnable {

	private static final Log logger = LogFactory.getLog(Mailbox.class);

	private final String name;

	private final LeaseSource source;

	private final LeaseScheduler scheduler;

	private final LeaseMachine machine;

	private final Notifier notifier;

	/**
	 * The lease's link to its token or to its dependents: made at once for a lease that
	 * depends on a token, when the first dependent is built for a token, never for the
	 * others.
	 */
	private volatile @Nullable TokenBinding binding;

	/** Inputs waiting for the one being applied, made when first needed. */
	private @Nullable ArrayDeque<LeaseInput> inbox;

	/**
	 * Completed by the first grant, then let go: asked for afterwards, a completed one is
	 * made.
	 */
	private volatile @Nullable CompletableFuture<LeaseSnapshot> firstGrant = new CompletableFuture<>();

	/** Made when first asked for: most leases are stopped once, at shutdown. */
	private @Nullable CompletableFuture<Void> stopped;

	/**
	 * The state, replaced (never changed) by each transition: read by other threads for
	 * its snapshot, built when first asked for.
	 */
	private volatile LeaseMachine.State state = new LeaseMachine.State();

	private boolean draining;

	/** Read by the worker threads too: an attempt abandoned meanwhile is never sent. */
	private volatile long attempt;

	/** The lease's one timer, re-armed in place by each transition. */
	private final LeaseScheduler.Timer timer;

	/** The instant the state asked the armed timer for. */
	private @Nullable Instant timerAt;

	/**
	 * When the armed timer is due: that instant, or when it was armed if that was later
	 * (a pause after that makes it late).
	 */
	private @Nullable Instant timerDue;

	/** This lease's call on a worker: at most one at a time (scheduling thread only). */
	private @Nullable Cancellable running;

	private long runningId;

	/** Whether the running call may be interrupted once abandoned. */
	private boolean interruptible;

	/** Replaced grants released by their consumers, revoked at a later instant. */
	private @Nullable List<Held> delayed;

	/** When the running offer is interrupted if the consumers still have not taken it. */
	private @Nullable Cancellable offerBound;

	/** The next call, started once the running one has returned. */
	private @Nullable Waiting waiting;

	Mailbox(String name, LeaseSource source, LeaseScheduler scheduler, LeaseMachine machine, Notifier notifier,
			@Nullable ManagedLease token, @Nullable FollowedToken followed) {
		this.name = name;
		this.source = source;
		this.scheduler = scheduler;
		this.machine = machine;
		this.notifier = notifier;
		this.timer = scheduler.timer(this);
		if (token != null || followed != null) {
			this.binding = new TokenBinding(this, token, followed);
		}
	}

	String name() {
		return this.name;
	}

	LeaseSource source() {
		return this.source;
	}

	LeaseScheduler scheduler() {
		return this.scheduler;
	}

	/** The binding of this lease, made for a token when its first dependent is built. */
	synchronized TokenBinding binding() {
		TokenBinding made = this.binding;
		if (made == null) {
			made = new TokenBinding(this, null, null);
			this.binding = made;
		}
		return made;
	}

	/** Tie the lease to the token it depends on, if it has one. */
	void attach(ManagedLease lease) {
		TokenBinding bound = this.binding;
		if (bound != null) {
			bound.attach(lease);
		}
	}

	@Nullable ManagedLease token() {
		TokenBinding bound = this.binding;
		return (bound != null) ? bound.token() : null;
	}

	LeaseSnapshot snapshot() {
		return this.state.snapshot(this.name);
	}

	/** The state as it is now: read on the scheduling thread only. */
	LeaseMachine.State state() {
		return this.state;
	}

	/** The error class of the last failed attempt since the last success. */
	@Nullable String lastErrorClass() {
		LeaseSourceException failure = this.state.lastFailure;
		return (failure != null) ? failure.getErrorClass() : null;
	}

	CompletableFuture<LeaseSnapshot> firstGrant() {
		CompletableFuture<LeaseSnapshot> pending = this.firstGrant;
		return (pending != null) ? pending : CompletableFuture.completedFuture(snapshot().withoutData());
	}

	synchronized CompletableFuture<Void> stopped() {
		if (this.stopped == null) {
			this.stopped = new CompletableFuture<>();
		}
		return this.stopped;
	}

	/** Deliver an input from any thread: it is applied on the scheduling thread. */
	void post(LeaseInput input) {
		this.scheduler.schedule(Instant.MIN, () -> deliver(input));
	}

	/** Deliver an input on the scheduling thread. */
	void deliver(LeaseInput input) {
		if (this.draining) {
			// an effect of the input being applied delivered this one: it waits its turn
			if (this.inbox == null) {
				this.inbox = new ArrayDeque<>(4);
			}
			this.inbox.add(input);
			return;
		}
		this.draining = true;
		try {
			step(input);
			LeaseInput next;
			while (this.inbox != null && (next = this.inbox.poll()) != null) {
				step(next);
			}
		}
		finally {
			this.draining = false;
		}
	}

	private void step(LeaseInput input) {
		Instant now = this.scheduler.now();
		TokenBinding bound = this.binding;
		LeaseMachine.Transition transition = this.machine.apply(this.state, input, now,
				(bound != null) ? bound.tokenView() : null);
		this.state = transition.state();
		for (LeaseEffect effect : transition.effects()) {
			run(effect);
		}
		rearm(now);
		if (this.running != null && this.interruptible
				&& (this.state.inFlight == null || this.runningId != this.attempt)) {
			// abandoned (its deadline passed, or the lease moved on): interrupted,
			// so that a hung connection holds neither a worker nor the next attempt
			this.running.cancel();
		}
		if (bound != null) {
			bound.afterTransition();
		}
		String violation = LeaseMachine.violation(this.state);
		if (violation != null) {
			throw new IllegalStateException("Lease '" + this.name + "' " + violation + " after " + input);
		}
	}

	private void rearm(Instant now) {
		Instant at = this.state.timerAt();
		if (at != null && at.equals(this.timerAt)) {
			return;
		}
		this.timerAt = at;
		if (at == null) {
			this.timer.disarm();
			return;
		}
		this.timerDue = at.isBefore(now) ? now : at;
		this.timer.arm(at);
	}

	/** The lease's one timer fired. */
	@Override
	public void run() {
		Instant due = this.timerDue;
		this.timerAt = null;
		deliver(new LeaseInput.TimerFired((due != null) ? due : this.scheduler.now()));
	}

	private void run(LeaseEffect effect) {
		if (effect instanceof LeaseEffect.Send send) {
			send(send.op());
		}
		else if (effect instanceof LeaseEffect.Offer offer) {
			offer(offer.candidate(), offer.previous());
		}
		else if (effect instanceof LeaseEffect.Release release) {
			release(release.replaced(), release.revoke(), release.revokeAt());
		}
		else if (effect instanceof LeaseEffect.Revoke revoke) {
			revokeQuietly(revoke.grant());
		}
		else if (effect instanceof LeaseEffect.Shutdown shutdown) {
			shutdown(shutdown.revoke(), shutdown.held());
		}
		else if (effect instanceof LeaseEffect.TellDependents tell) {
			TokenBinding bound = this.binding;
			if (bound != null) {
				bound.tell(tell.news(), tell.generation(), tell.expiry(), tell.validUntil());
			}
		}
		else if (effect instanceof LeaseEffect.VerifyToken verify) {
			TokenBinding bound = this.binding;
			if (bound != null) {
				bound.verify(verify.generation());
			}
		}
		else if (effect instanceof LeaseEffect.FirstGrantFailed failed) {
			CompletableFuture<LeaseSnapshot> pending = this.firstGrant;
			if (pending != null) {
				// kept: asked for later, it tells why
				pending.completeExceptionally(failed.failure());
			}
		}
		else if (effect instanceof LeaseEffect.Notice notice) {
			CompletableFuture<LeaseSnapshot> pending = this.firstGrant;
			if (notice instanceof LeaseEffect.Acquired && pending != null && !pending.isDone()) {
				// without the credential, and let go of once completed
				pending.complete(snapshot().withoutData());
				this.firstGrant = null;
			}
			this.notifier.notice(snapshot(), notice);
		}
	}

	private void send(Op op) {
		long id = ++this.attempt;
		Held held = this.state.held;
		// an acquisition is never interrupted: Vault may have made the credential, and
		// its answer is needed to use or revoke it
		start(id, op, op != Op.ACQUIRE, new Attempt(id, op, (held != null) ? held.grant() : null,
				this.state.attemptDeadline, this.state.sentUnder));
	}

	/** One call to the store: sent on a worker, answered on the scheduling thread. */
	private final class Attempt
			implements Supplier<Cancellable>, Callable<Grant>, BiConsumer<@Nullable Grant, @Nullable Exception> {

		private final long id;

		private final Op op;

		private final @Nullable Grant grant;

		private final @Nullable Instant deadline;

		private final int under;

		Attempt(long id, Op op, @Nullable Grant grant, @Nullable Instant deadline, int under) {
			this.id = id;
			this.op = op;
			this.grant = grant;
			this.deadline = deadline;
			this.under = under;
		}

		@Override
		public Cancellable get() {
			return Mailbox.this.scheduler.call(this, this);
		}

		@Override
		public Grant call() throws LeaseSourceException {
			if (this.id != Mailbox.this.attempt
					|| (this.deadline != null && !Mailbox.this.scheduler.now().isBefore(this.deadline))) {
				// it waited for a thread past its deadline, or was abandoned: never sent
				throw LeaseSourceException.transientFailure("abandoned",
						"not sent: its deadline passed while it waited for a thread", null);
			}
			return switch (this.op) {
				case ACQUIRE -> Mailbox.this.source.acquire();
				case RENEW -> Mailbox.this.source.renew(held(), Mailbox.this.machine.settings().increment());
				case VERIFY -> Mailbox.this.source.lookup(held());
				case OFFER -> throw new IllegalStateException("an offer is not sent to the store");
			};
		}

		private Grant held() {
			Assert.state(this.grant != null, "No grant is held");
			return this.grant;
		}

		@Override
		public void accept(@Nullable Grant result, @Nullable Exception failure) {
			Waiting next = Mailbox.this.waiting;
			if (this.id != Mailbox.this.attempt && this.op == Op.ACQUIRE && result != null && next != null
					&& next.op() == Op.ACQUIRE && next.under() == this.under) {
				// an abandoned acquisition answered while the next one waits for it: its
				// grant (counted from when it was sent) is that one's answer, and Vault
				// is not asked twice
				Mailbox.this.running = null;
				Mailbox.this.waiting = null;
				deliver(new LeaseInput.Answered(this.op, result));
				return;
			}
			finished();
			if (this.id != Mailbox.this.attempt) {
				if (this.op == Op.ACQUIRE && result != null) {
					revokeQuietly(result);
				}
				return;
			}
			if (failure == null && result != null) {
				deliver(new LeaseInput.Answered(this.op, result));
			}
			else {
				deliver(new LeaseInput.Failed(this.op, classify(failure)));
			}
		}

	}

	/**
	 * Start this lease's next call: at once, or, while an abandoned one still runs, once
	 * that one has returned (it is interrupted meanwhile). A lease never has two calls on
	 * the workers, so an outage whose connections hang holds at most one thread and one
	 * connection per lease, and a recovery meets at most one request per lease.
	 */
	private void start(long id, Op op, boolean interruptible, Supplier<Cancellable> call) {
		if (this.running != null) {
			if (this.interruptible) {
				this.running.cancel();
			}
			this.waiting = new Waiting(op, this.state.sentUnder, () -> dispatch(id, interruptible, call));
			return;
		}
		dispatch(id, interruptible, call);
	}

	private void dispatch(long id, boolean interruptible, Supplier<Cancellable> call) {
		this.runningId = id;
		this.interruptible = interruptible;
		this.running = call.get();
	}

	/** The running call returned: the one waiting for it may start. */
	private void finished() {
		this.running = null;
		Waiting next = this.waiting;
		this.waiting = null;
		if (next != null) {
			next.start().run();
		}
	}

	/**
	 * A call waiting for the abandoned one to return: what it does, under which token
	 * generation, and how it starts.
	 */
	private record Waiting(Op op, int under, Runnable start) {
	}

	private void offer(Held candidate, @Nullable Held previous) {
		long id = ++this.attempt;
		LeaseSnapshot candidateSnapshot = snapshotOf(candidate, LeaseState.ACTIVE);
		LeaseSnapshot previousSnapshot = (previous != null) ? snapshot() : null;
		Instant bound = consumerBound(candidate, previous);
		start(id, Op.OFFER, true, () -> {
			Cancellable call = this.scheduler.call(() -> {
				this.notifier.accept(candidateSnapshot, previousSnapshot);
				return Boolean.TRUE;
			}, (result, rejection) -> offered(id, candidate, rejection));
			if (bound != null) {
				this.offerBound = this.scheduler.schedule(bound, () -> {
					if (this.running == call) {
						logger.warn(describe(candidate) + ": a consumer still had not taken the new grant when "
								+ ((previous != null) ? "the current one" : "it") + " ran out; interrupting it");
						call.cancel();
					}
				});
			}
			return call;
		});
	}

	/**
	 * How long the consumers may take a new grant: until the grant it replaces (or, for a
	 * first grant, the new one) is no longer valid.
	 */
	private static @Nullable Instant consumerBound(Held candidate, @Nullable Held previous) {
		Instant bound = candidate.validUntilOrNull();
		Instant current = (previous != null) ? previous.validUntilOrNull() : null;
		if (current != null && (bound == null || current.isBefore(bound))) {
			return current;
		}
		return bound;
	}

	private void offered(long id, Held candidate, @Nullable Exception rejection) {
		// the bound of this offer goes with it (the next call's is set once it starts)
		if (this.offerBound != null) {
			this.offerBound.cancel();
			this.offerBound = null;
		}
		finished();
		if (id != this.attempt) {
			revokeQuietly(candidate.grant());
			return;
		}
		if (rejection == null) {
			deliver(new LeaseInput.Accepted(candidate));
		}
		else {
			logger.error(describe(candidate) + ": a consumer rejected the new grant (" + rejection.getMessage()
					+ "); keeping generation " + this.state.generation + " and revoking the rejected grant");
			deliver(new LeaseInput.Rejected(candidate, rejection));
		}
	}

	private void release(Held replaced, boolean revoke, @Nullable Instant revokeAt) {
		LeaseSnapshot releasing = snapshotOf(replaced, LeaseState.REVOKED);
		TokenBinding bound = this.binding;
		boolean deferred = revoke && bound != null && bound.deferRevocation(replaced);
		// the consumers let go (a pool drains, holding no thread while it waits), then
		// the grant is revoked
		this.scheduler.call(() -> this.notifier.release(releasing), (released, failure) -> {
			CompletionStage<Void> done = (released != null) ? released : CompletableFuture.completedFuture(null);
			done.whenComplete((ignored, drainFailure) -> this.scheduler.schedule(Instant.MIN,
					() -> revokeReleased(replaced, revoke && !deferred, revokeAt)));
		});
	}

	/** Revoke a grant its consumers let go of: now, or at {@code revokeAt} if later. */
	private void revokeReleased(Held replaced, boolean revoke, @Nullable Instant revokeAt) {
		if (revoke && revokeAt != null && revokeAt.isAfter(this.scheduler.now())
				&& this.state.state != LeaseState.REVOKED) {
			if (this.delayed == null) {
				this.delayed = new ArrayList<>(2);
			}
			this.delayed.add(replaced);
			this.scheduler.schedule(revokeAt, () -> {
				if (this.delayed != null && this.delayed.remove(replaced)) {
					revokeNow(replaced, true);
				}
			});
			return;
		}
		revokeNow(replaced, revoke);
	}

	private void revokeNow(Held replaced, boolean revoke) {
		this.scheduler.call(() -> {
			if (revoke) {
				this.source.revoke(replaced.grant());
			}
			return Boolean.TRUE;
		}, (result, revokeFailure) -> {
			if (revokeFailure != null) {
				logger.warn(describe(replaced) + ": releasing the replaced grant failed (" + errorClass(revokeFailure)
						+ "); its TTL will end it");
			}
			deliver(new LeaseInput.Released());
		});
	}

	/** Revoke a replaced token once every lease obtained under it has moved on. */
	void revokeReplaced(Held replaced) {
		this.scheduler.call(() -> {
			this.source.revoke(replaced.grant());
			return Boolean.TRUE;
		}, (result, failure) -> {
			if (failure != null) {
				logger.warn(describe(replaced) + ": revoking the replaced grant failed (" + errorClass(failure)
						+ "); its TTL will end it");
			}
		});
	}

	private void shutdown(boolean revoke, @Nullable Grant held) {
		TokenBinding bound = this.binding;
		List<Held> awaiting = (bound != null) ? bound.takeDeferred() : List.of();
		// replaced grants whose revocation was spread out go now: nobody uses them
		List<Held> spread = (this.delayed != null) ? List.copyOf(this.delayed) : List.of();
		this.delayed = null;
		boolean ours = this.source.revokes();
		this.scheduler.call(() -> {
			for (Held replaced : spread) {
				this.source.revoke(replaced.grant());
			}
			boolean revoked = false;
			if (revoke && held != null && ours) {
				this.source.revoke(held);
				revoked = true;
			}
			if (revoke) {
				for (Held replaced : awaiting) {
					this.source.revoke(replaced.grant());
				}
			}
			return revoked;
		}, (revoked, failure) -> {
			if (failure != null) {
				logger.warn(describe(this.state.held) + ": revocation on shutdown failed (" + errorClass(failure)
						+ "); its TTL will end it");
			}
			else if (Boolean.TRUE.equals(revoked)) {
				logger.info(describe(this.state.held) + ": revoked on shutdown");
			}
			else if (held != null) {
				logger.info(describe(this.state.held) + ": kept on shutdown ("
						+ (!ours ? "not Leasekeeper's to revoke" : "revoke-on-shutdown is false") + ")");
			}
			this.notifier.stopped(snapshot(), failure == null && Boolean.TRUE.equals(revoked));
			stopped().complete(null);
		});
	}

	private void revokeQuietly(Grant grant) {
		this.scheduler.call(() -> {
			this.source.revoke(grant);
			return Boolean.TRUE;
		}, (result, failure) -> logger.debug("Lease '" + this.name + "': revoked a grant that nobody uses"));
	}

	private LeaseSnapshot snapshotOf(Held held, LeaseState as) {
		Grant grant = held.grant();
		return new LeaseSnapshot(this.name, held.generation(), grant.leaseId(), as, grant.obtainedAt(), grant.ttl(),
				held.expiry(), held.validUntilOrNull(), null, as.holdsGrant() ? grant.data() : Map.of());
	}

	String describe(@Nullable Held held) {
		if (held == null) {
			return "Lease '" + this.name + "' (" + this.source.describe() + ")";
		}
		return "Lease '" + this.name + "' generation " + held.generation() + " ("
				+ Redaction.maskLeaseId(held.grant().leaseId()) + ")";
	}

	private static String errorClass(Exception failure) {
		return classify(failure).getErrorClass();
	}

	static LeaseSourceException classify(@Nullable Exception failure) {
		if (failure instanceof LeaseSourceException sourceException) {
			return sourceException;
		}
		// an unexpected exception (a malformed answer): retry, never let it stop the
		// lease
		String type = (failure != null) ? failure.getClass().getSimpleName() : "null-answer";
		return LeaseSourceException.transientFailure("unexpected-" + type,
				"unexpected failure of the lease source: " + type, failure);
	}

}
