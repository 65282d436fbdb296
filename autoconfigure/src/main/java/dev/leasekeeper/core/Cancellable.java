package dev.leasekeeper.core;

/**
 * A scheduled task that can still be called off.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@FunctionalInterface
public interface Cancellable {

	/**
	 * Call off the task if it has not run yet.
	 */
	void cancel();

}
