package dev.leasekeeper.autoconfigure;

/**
 * Thrown at start-up, with {@code leasekeeper.fail-fast}, when a lease cannot be obtained
 * in time.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class LeaseUnavailableException extends RuntimeException {

	private final String leaseName;

	private final String path;

	/**
	 * Create a new exception.
	 * @param leaseName the lease's name
	 * @param path what it is obtained from
	 * @param message the description, naming Vault's answer (never a secret)
	 */
	public LeaseUnavailableException(String leaseName, String path, String message) {
		super(message);
		this.leaseName = leaseName;
		this.path = path;
	}

	/**
	 * Return the lease's name.
	 * @return the name
	 */
	public String getLeaseName() {
		return this.leaseName;
	}

	/**
	 * Return what the lease is obtained from.
	 * @return the path
	 */
	public String getPath() {
		return this.path;
	}

}
