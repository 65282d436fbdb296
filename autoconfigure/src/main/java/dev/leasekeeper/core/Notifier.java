package dev.leasekeeper.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseEffect.Notice;

/**
 * Tells the log and the listeners what happened to a lease, on the scheduling thread, in
 * listener order (an application's listeners pass it on to threads of their own). A
 * listener that throws, even an {@link Error}, is logged and the others are still told.
 * Log lines carry the lease's name, generation, masked lease id, expiries and error
 * classes, never a secret.
 * <p>
 * The listeners are also the lease's synchronous consumers (the pool refresher), and this
 * is the order in which they take a new grant and let go of an old one, on a worker
 * thread: every consumer accepts the candidate, or none keeps it (those that had accepted
 * are handed the previous grant back and release the candidate); a replaced grant is
 * released by every consumer, whatever one of them throws, before it is revoked.
 *
 * @author Leasekeeper
 */
final class Notifier {

	private static final Log logger = LogFactory.getLog(ManagedLease.class);

	private final String path;

	private final CeilingAction onCeiling;

	private final List<LeaseListener> listeners;

	Notifier(String path, CeilingAction onCeiling, List<LeaseListener> listeners) {
		this.path = path;
		this.onCeiling = onCeiling;
		this.listeners = List.copyOf(listeners);
	}

	void notice(LeaseSnapshot lease, Notice notice) {
		if (notice instanceof LeaseEffect.Acquired) {
			logger.info(describe(lease) + ": obtained, expires " + lease.expiry());
			tell(lease, (listener) -> listener.onAcquired(lease));
		}
		else if (notice instanceof LeaseEffect.Renewed renewed) {
			LeaseRenewal renewal = new LeaseRenewal(lease, renewed.previousExpiry(), lease.expiry(), lease.ttl(),
					renewed.remainingAtAttempt(), renewed.attempts(), renewed.capped());
			if (logger.isDebugEnabled()) {
				logger.debug(describe(lease) + ": renewed, expiry " + renewed.previousExpiry() + " -> " + lease.expiry()
						+ ", granted " + lease.ttl() + ", remaining at attempt " + renewed.remainingAtAttempt()
						+ ", attempts " + renewed.attempts());
			}
			tell(lease, (listener) -> listener.onRenewed(renewal));
		}
		else if (notice instanceof LeaseEffect.AttemptFailed failed) {
			LeaseSourceException failure = failed.failure();
			logger.warn(describe(lease) + ": attempt " + failed.attempt() + " failed (" + failure.getErrorClass() + ": "
					+ failure.getMessage() + "), "
					+ ((failed.nextAttemptAt() != null) ? "next attempt at " + failed.nextAttemptAt()
							: "no further attempt")
					+ ((failure.getKind() == LeaseSourceException.Kind.TRANSIENT) ? "; check that Vault is reachable"
							: ""));
			tell(lease, (listener) -> listener.onFailure(lease, failure, failed.attempt(), failed.nextAttemptAt()));
		}
		else if (notice instanceof LeaseEffect.PathRefused refused) {
			logger.warn(describe(lease) + ": Vault refuses " + this.path + " (" + refused.failure().getErrorClass()
					+ ") although the token is valid: its policy does not allow it. Only this lease is affected;"
					+ " next attempt at " + refused.nextAttemptAt() + ". Grant the policy, see the README");
			tell(lease, (listener) -> listener.onFailure(lease, refused.failure(), 1, refused.nextAttemptAt()));
		}
		else if (notice instanceof LeaseEffect.CeilingReached ceiling) {
			logger.info(describe(lease) + ": reached its ceiling, hard expiry " + ceiling.hardExpiry() + "; "
					+ ((this.onCeiling == CeilingAction.ROTATE) ? "rotating at " + lease.nextActionAt()
							: "notifying only"));
			tell(lease, (listener) -> listener.onCeilingReached(lease, ceiling.hardExpiry(), this.onCeiling));
		}
		else if (notice instanceof LeaseEffect.Rotated rotated) {
			logger.info(describe(lease) + ": rotated from generation " + rotated.previousGeneration() + " ("
					+ rotated.cause() + "), expires " + lease.expiry());
			tell(lease, (listener) -> listener.onRotated(lease, rotated.previousGeneration(), rotated.cause()));
		}
		else if (notice instanceof LeaseEffect.ReplacementRejected rejected) {
			tell(lease, (listener) -> listener.onReplacementRejected(lease, rejected.failure()));
		}
		else if (notice instanceof LeaseEffect.Lost lost) {
			logger.error(describe(lease) + ": lost (" + lost.reason() + ", " + lost.errorClass() + "), valid until "
					+ lease.validUntil());
			tell(lease, (listener) -> listener.onLost(lease, lost.reason(), lost.errorClass()));
		}
		else if (notice instanceof LeaseEffect.Late late) {
			logger.warn(describe(lease) + ": its timer fired " + late.lateness() + " late"
					+ (late.pastValidity() ? ", after the validity ended: verifying the lease with Vault at once" : "")
					+ " (a pause, a suspend or an overloaded host)");
			tell(lease, (listener) -> listener.onTimerLate(lease, late.lateness()));
		}
		else if (notice instanceof LeaseEffect.CannotBeReplaced end) {
			logger.warn(describe(lease) + ": asked for a new grant, the store gave back"
					+ " the one held (a token given in configuration cannot be replaced); it is used until "
					+ end.validUntil() + ", then lost. Log in with a method that makes new tokens (AppRole,"
					+ " Kubernetes) to keep access past it");
		}
		else if (notice instanceof LeaseEffect.WindowTooShort tooShort) {
			logger.warn("Lease '" + lease.name() + "': its window of " + tooShort.window() + " is shorter than the "
					+ RenewalSchedule.SHORTEST_WINDOW + " Leasekeeper can keep alive: a renewal that does not come"
					+ " back at once loses it. Ask Vault for a longer TTL (the role's default_ttl, or increment)");
		}
	}

	void stopped(LeaseSnapshot lease, boolean revoked) {
		tell(lease, (listener) -> listener.onStopped(lease, revoked));
	}

	private void tell(LeaseSnapshot lease, Consumer<LeaseListener> notification) {
		for (LeaseListener listener : this.listeners) {
			try {
				notification.accept(listener);
			}
			catch (Throwable ex) {
				// whatever a listener throws, the transition completes
				logger.warn("Lease '" + lease.name() + "': listener " + listener.getClass().getName() + " failed", ex);
			}
		}
	}

	/* ---- The synchronous consumers, on a worker thread ---- */

	void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) throws Exception {
		List<LeaseListener> accepted = new ArrayList<>();
		for (LeaseListener consumer : this.listeners) {
			try {
				consumer.accept(candidate, previous);
			}
			catch (Exception ex) {
				compensate(accepted, candidate, previous);
				throw ex;
			}
			catch (Error ex) {
				compensate(accepted, candidate, previous);
				throw new java.util.concurrent.ExecutionException(consumer.getClass().getName() + " failed", ex);
			}
			accepted.add(consumer);
		}
	}

	/**
	 * Every consumer lets go of a replaced grant, one after the other; whatever one of
	 * them throws, the others still release and the grant is still revoked.
	 * @return completes once every consumer has let go
	 */
	CompletionStage<Void> release(LeaseSnapshot replaced) {
		CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
		for (LeaseListener consumer : this.listeners) {
			all = all.thenCompose((ignored) -> releaseQuietly(consumer, replaced));
		}
		return all;
	}

	private static CompletionStage<Void> releaseQuietly(LeaseListener consumer, LeaseSnapshot replaced) {
		try {
			return consumer.releaseLater(replaced).handle((result, failure) -> {
				if (failure != null) {
					warnReleaseFailed(consumer, replaced, failure);
				}
				return null;
			});
		}
		catch (Throwable ex) {
			warnReleaseFailed(consumer, replaced, ex);
			return CompletableFuture.completedFuture(null);
		}
	}

	private static void warnReleaseFailed(LeaseListener consumer, LeaseSnapshot replaced, Throwable failure) {
		logger.warn("Lease '" + replaced.name() + "': " + consumer.getClass().getName()
				+ " failed to release generation " + replaced.generation(), failure);
	}

	private void compensate(List<LeaseListener> accepted, LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) {
		for (int i = accepted.size() - 1; i >= 0; i--) {
			LeaseListener consumer = accepted.get(i);
			try {
				if (previous != null) {
					consumer.accept(previous, candidate);
				}
				consumer.release(candidate);
			}
			catch (Throwable ex) {
				logger.warn("Lease '" + candidate.name() + "': " + consumer.getClass().getName()
						+ " could not go back to generation " + ((previous != null) ? previous.generation() : 0), ex);
			}
		}
	}

	private String describe(LeaseSnapshot lease) {
		return "Lease '" + lease.name() + "' generation " + lease.generation() + " (" + lease.maskedLeaseId() + ")";
	}

}
