package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a transition of a {@link LeaseMachine} asks to be done: calls to the store and the
 * consumers, which the {@link Mailbox} runs, news for dependents, and notifications,
 * which the {@link Notifier} hands to listeners.
 *
 * @author Leasekeeper
 */
sealed interface LeaseEffect {

	/** Send an operation to the store; it is the lease's one operation in flight. */
	record Send(LeaseMachine.Op op) implements LeaseEffect {
	}

	/** Hand a candidate to the synchronous consumers. */
	record Offer(Held candidate, @Nullable Held previous) implements LeaseEffect {
	}

	/**
	 * Let the consumers go of a replaced grant, then revoke it if asked: once they have,
	 * or at {@code revokeAt} if that is later (the revocations of a fleet's rotations
	 * spread over the old grants' remaining life).
	 */
	record Release(Held replaced, boolean revoke, @Nullable Instant revokeAt) implements LeaseEffect {
	}

	/** Revoke a grant no one uses (rejected, or arrived too late). */
	record Revoke(Grant grant) implements LeaseEffect {
	}

	/** Revoke what is held on shutdown, if asked, and report the lease stopped. */
	record Shutdown(boolean revoke, @Nullable Grant held) implements LeaseEffect {
	}

	/** Tell the leases obtained under this token what happened to it. */
	record TellDependents(LeaseInput.TokenNews news, int generation, @Nullable Instant expiry,
			@Nullable Instant validUntil) implements LeaseEffect {
	}

	/** Ask this lease's token whether it is still valid. */
	record VerifyToken(int generation) implements LeaseEffect {
	}

	/** A notification for the listeners (and the log). */
	sealed interface Notice extends LeaseEffect {

	}

	/** The first grant, or a new one after a loss with nothing held. */
	record Acquired() implements Notice {
	}

	/** A renewal succeeded. */
	record Renewed(@Nullable Instant previousExpiry, Duration remainingAtAttempt, int attempts,
			boolean capped) implements Notice {
	}

	/** An attempt failed. */
	record AttemptFailed(LeaseSourceException failure, int attempt, @Nullable Instant nextAttemptAt) implements Notice {
	}

	/** The ceiling is known. */
	record CeilingReached(Instant hardExpiry) implements Notice {
	}

	/** A replacement became current. */
	record Rotated(int previousGeneration, RotationCause cause) implements Notice {
	}

	/** A consumer rejected a replacement. */
	record ReplacementRejected(Exception failure) implements Notice {
	}

	/** The engine stopped vouching for the grant. */
	record Lost(LeaseLossReason reason, @Nullable String errorClass) implements Notice {
	}

	/**
	 * The store refuses this lease's path while its token is valid (a missing policy).
	 */
	record PathRefused(LeaseSourceException failure, Instant nextAttemptAt) implements Notice {
	}

	/** The first grant could not be obtained, and no retry is planned. */
	record FirstGrantFailed(LeaseSourceException failure) implements Notice {
	}

	/** A timer fired late. */
	record Late(Duration lateness, boolean pastValidity) implements Notice {
	}

	/**
	 * The store gave back the credential held when asked for a new one: it is kept until
	 * {@code validUntil}, then lost.
	 */
	record CannotBeReplaced(Instant validUntil) implements Notice {
	}

	/** A window is shorter than what can be kept alive. */
	record WindowTooShort(Duration window) implements Notice {
	}

}
