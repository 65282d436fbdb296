package dev.leasekeeper.autoconfigure;

/**
 * How the application stops when a lease with {@code on-lost: exit} is lost. The default
 * closes the context and exits the JVM; define a bean of this type to do otherwise.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@FunctionalInterface
public interface LeasekeeperExit {

	/**
	 * Stop the application.
	 * @param exitCode the exit code
	 */
	void exit(int exitCode);

}
