package dev.leasekeeper.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The synchronous consumers of a lease (the pool refresher) and the order in which they
 * take a new grant and let go of an old one: every consumer accepts the candidate, or
 * none keeps it (those that had accepted are handed the previous grant back and release
 * the candidate); a replaced grant is released by every consumer, whatever one of them
 * throws, before it is revoked. Called on a worker thread.
 *
 * @author Leasekeeper
 */
final class RotationSequence {

	private static final Log logger = LogFactory.getLog(RotationSequence.class);

	private final List<LeaseListener> consumers;

	RotationSequence(List<LeaseListener> consumers) {
		this.consumers = List.copyOf(consumers);
	}

	void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) throws Exception {
		List<LeaseListener> accepted = new ArrayList<>();
		for (LeaseListener consumer : this.consumers) {
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
		for (LeaseListener consumer : this.consumers) {
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

}
