package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * Hears what happens to a lease. Every method has a no-op default.
 * <p>
 * {@link #accept} and {@link #release} are the synchronous consumers (the pool
 * refresher): they are called on a worker thread, may block, and the engine waits for
 * them before it moves on. Every other method is called on the scheduling thread, in
 * listener order, and must return quickly: hand slow work to another thread. An exception
 * thrown by a notification is logged and otherwise ignored.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public interface LeaseListener {

	/**
	 * Take a new grant before it becomes current: the first grant of a lease
	 * ({@code previous} is {@code null}) or a replacement. Throw to reject it: the engine
	 * keeps the previous grant, revokes the rejected one and tries again within the
	 * budget.
	 * @param candidate the lease as it will be with the new grant
	 * @param previous the lease as it is, or {@code null} for a first grant
	 * @throws Exception to reject the grant
	 */
	default void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) throws Exception {
	}

	/**
	 * Let go of a grant that was replaced; return once nothing uses it any more. The
	 * engine revokes it only afterwards.
	 * @param previous the lease as it was with the grant being released
	 */
	default void release(LeaseSnapshot previous) {
	}

	/**
	 * Let go of a grant that was replaced without holding a thread while nothing else is
	 * left to do but wait (for borrowed connections to come back, say): the engine
	 * revokes it once the returned stage completes. By default {@link #release} is called
	 * and the stage is complete.
	 * @param previous the lease as it was with the grant being released
	 * @return completes once nothing uses the grant any more
	 */
	default CompletionStage<?> releaseLater(LeaseSnapshot previous) {
		release(previous);
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Called when a lease holds its first grant, or a new one after it was lost.
	 * @param lease the lease
	 */
	default void onAcquired(LeaseSnapshot lease) {
	}

	/**
	 * Called after each successful renewal.
	 * @param renewal what the renewal changed
	 */
	default void onRenewed(LeaseRenewal renewal) {
	}

	/**
	 * Called after each failed attempt to renew or obtain a grant.
	 * @param lease the lease
	 * @param failure the failure
	 * @param attempt the number of the failed attempt in its streak, from 1
	 * @param nextAttemptAt when the next attempt is scheduled, or {@code null} if none
	 * fits
	 */
	default void onFailure(LeaseSnapshot lease, LeaseSourceException failure, int attempt,
			@Nullable Instant nextAttemptAt) {
	}

	/**
	 * Called once per generation, on the renewal that revealed the ceiling.
	 * @param lease the lease
	 * @param hardExpiry the instant past which the grant cannot be extended
	 * @param action what the lease does about it
	 */
	default void onCeilingReached(LeaseSnapshot lease, Instant hardExpiry, CeilingAction action) {
	}

	/**
	 * Called when a replacement became current.
	 * @param lease the lease with its new generation
	 * @param previousGeneration the generation it replaced
	 * @param cause why the lease was rotated
	 */
	default void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
	}

	/**
	 * Called when a consumer rejected a replacement.
	 * @param lease the lease, still with its previous grant
	 * @param failure what the consumer threw; its message may be logged
	 */
	default void onReplacementRejected(LeaseSnapshot lease, Exception failure) {
	}

	/**
	 * Called when the engine stops vouching for a grant: its deadline passed, or the
	 * store refused it.
	 * @param lease the lease
	 * @param reason why
	 * @param errorClass the error class of the last failure, or {@code null}
	 */
	default void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
	}

	/**
	 * Called when one of the lease's timers fired later than planned by more than a small
	 * tolerance (a pause, a suspend, an overloaded host): the lease acts on it at once.
	 * @param lease the lease
	 * @param lateness how late the timer fired
	 */
	default void onTimerLate(LeaseSnapshot lease, Duration lateness) {
	}

	/**
	 * Called when a lease was shut down.
	 * @param lease the lease
	 * @param revoked whether its grant was revoked
	 */
	default void onStopped(LeaseSnapshot lease, boolean revoked) {
	}

}
