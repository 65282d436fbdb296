package dev.leasekeeper.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What can happen to a lease: the events of its {@link LeaseMachine}'s table.
 *
 * @author Leasekeeper
 */
sealed interface LeaseInput {

	/** The lease was started. */
	record Start() implements LeaseInput {
	}

	/** The lease's timer fired; {@code due} is the instant it was armed for. */
	record TimerFired(Instant due) implements LeaseInput {
	}

	/** The store answered the operation in flight with a grant. */
	record Answered(LeaseMachine.Op op, Grant grant) implements LeaseInput {
	}

	/** The operation in flight failed (a timeout is a transient failure). */
	record Failed(LeaseMachine.Op op, LeaseSourceException failure) implements LeaseInput {
	}

	/** Every consumer took the candidate. */
	record Accepted(Held candidate) implements LeaseInput {
	}

	/** A consumer rejected the candidate; the others were compensated. */
	record Rejected(Held candidate, Exception failure) implements LeaseInput {
	}

	/** A replaced grant was released (drained and revoked). */
	record Released() implements LeaseInput {
	}

	/** The token this lease depends on changed. */
	record TokenChanged(TokenNews news, int generation, @Nullable Instant expiry,
			@Nullable Instant validUntil) implements LeaseInput {
	}

	/** A dependent's call with this token was refused: is the token still valid? */
	record VerifyRequested(int generation) implements LeaseInput {
	}

	/** Time passed that the engine's clock did not see (a suspend): verify the grant. */
	record ClockJumped(java.time.Duration gap) implements LeaseInput {
	}

	/**
	 * An operator (or a consumer) asked for a renewal now: one instance serves every
	 * request ({@link ManagedLease#renewNow()}).
	 */
	record RenewRequested() implements LeaseInput {
	}

	/** An operator (or a consumer) asked for a replacement now. */
	record RotateRequested(RotationCause cause) implements LeaseInput {
	}

	/** The lease is being shut down. */
	record Stop(boolean revoke) implements LeaseInput {
	}

	/** What a token tells the leases obtained under it. */
	enum TokenNews {

		/** Renewed: a new expiry. */
		RENEWED,

		/** Replaced by a new generation: leases of older generations must move. */
		REPLACED,

		/** Lost: leases obtained under it are gone. */
		LOST,

		/** Still valid (a refused call was that path's policy, not the token). */
		CONFIRMED

	}

}
