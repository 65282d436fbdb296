package dev.leasekeeper.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseInput.TokenNews;

/**
 * The link between a token lease and the secret leases obtained under it. A secret lease
 * dies with its token, so: its effective expiry is the earlier of its own and its
 * token's; when the token is replaced it is obtained again under the new one; when the
 * token is lost it is lost too; a refused call makes the token verify itself before
 * anything is replaced. A replaced token is revoked only once every lease obtained under
 * it has moved on (revoking it would revoke them). Used on the scheduling thread.
 *
 * @author Leasekeeper
 */
final class TokenBinding {

	private final @Nullable ManagedLease token;

	/** Replaced as a whole when a dependent is added: read on the scheduling thread. */
	private volatile List<ManagedLease> dependents = List.of();

	/** Replaced tokens waiting for their dependents, made when first needed. */
	private @Nullable List<Held> deferred;

	private final @Nullable FollowedToken followed;

	private final Mailbox own;

	/**
	 * Create the binding of a lease: to the token it depends on, if any, and to the
	 * leases that will depend on it (made when the first of them is built, so that a
	 * lease without a token and without dependents has none).
	 */
	TokenBinding(Mailbox own, @Nullable ManagedLease token, @Nullable FollowedToken followed) {
		this.own = own;
		this.token = token;
		this.followed = followed;
	}

	void attach(ManagedLease lease) {
		if (this.token != null) {
			this.token.mailbox().binding().addDependent(lease);
		}
		else if (this.followed != null) {
			this.followed.attach(lease);
		}
	}

	private synchronized void addDependent(ManagedLease lease) {
		List<ManagedLease> added = new ArrayList<>(this.dependents);
		added.add(lease);
		this.dependents = List.copyOf(added);
	}

	@Nullable ManagedLease token() {
		return this.token;
	}

	/** The token as the dependent's machine sees it, or {@code null} without one. */
	LeaseMachine.@Nullable TokenView tokenView() {
		if (this.followed != null) {
			return this.followed.view();
		}
		if (this.token == null) {
			return null;
		}
		LeaseMachine.State state = this.token.mailbox().state();
		Held held = state.held;
		boolean holds = held != null && state.state.holdsGrant();
		return new LeaseMachine.TokenView(state.generation, holds, (held != null) ? held.expiry() : null,
				(held != null) ? held.validUntilOrNull() : null);
	}

	void tell(TokenNews news, int generation, @Nullable Instant expiry, @Nullable Instant validUntil) {
		for (ManagedLease dependent : this.dependents) {
			dependent.mailbox().deliver(new LeaseInput.TokenChanged(news, generation, expiry, validUntil));
		}
	}

	void verify(int generation) {
		if (this.token != null) {
			this.token.mailbox().deliver(new LeaseInput.VerifyRequested(generation));
		}
		else if (this.followed != null) {
			this.followed.verify(generation);
		}
	}

	/**
	 * Keep a replaced token until its dependents have moved, if it has any.
	 * @return whether its revocation waits
	 */
	boolean deferRevocation(Held replaced) {
		if (this.dependents.isEmpty()) {
			return false;
		}
		if (this.deferred == null) {
			this.deferred = new ArrayList<>(2);
		}
		this.deferred.add(replaced);
		return true;
	}

	/**
	 * The replaced tokens still waiting for their dependents, handed over on shutdown.
	 */
	List<Held> takeDeferred() {
		if (this.deferred == null) {
			return List.of();
		}
		List<Held> held = List.copyOf(this.deferred);
		this.deferred.clear();
		return held;
	}

	/** After each transition of a lease: the token may now revoke what it replaced. */
	void afterTransition() {
		if (this.token != null) {
			this.token.mailbox().binding().revokeIfMoved();
		}
		else if (this.followed == null) {
			revokeIfMoved();
		}
	}

	private void revokeIfMoved() {
		if (this.deferred == null || this.deferred.isEmpty()) {
			return;
		}
		int current = this.own.state().generation;
		for (ManagedLease dependent : this.dependents) {
			LeaseMachine.State state = dependent.mailbox().state();
			// a lease being verified (its timer fired late) may still come back on it
			boolean onOldToken = state.held != null
					&& (state.state.holdsGrant() || state.inFlight == LeaseMachine.Op.RENEW)
					&& state.held.tokenGeneration() < current;
			// a grant asked for, or being offered to the consumers, under an old token
			// would die with it before the lease moves on
			boolean comingOnOldToken = (state.inFlight == LeaseMachine.Op.ACQUIRE
					|| state.inFlight == LeaseMachine.Op.OFFER) && state.sentUnder < current;
			if (onOldToken || comingOnOldToken || state.releasing > 0) {
				return;
			}
		}
		// every dependent is on the current token: each token it replaced can go
		for (Held replaced : takeDeferred()) {
			this.own.revokeReplaced(replaced);
		}
	}

}
