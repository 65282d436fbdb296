package dev.leasekeeper.autoconfigure;

/**
 * Thrown at start-up when a {@code leasekeeper.*} property has a value that is not
 * allowed.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class InvalidLeasekeeperPropertyException extends RuntimeException {

	private final String property;

	private final String value;

	private final String allowed;

	/**
	 * Create a new exception.
	 * @param property the property in its configuration form, such as
	 * {@code leasekeeper.leases.orders-db.renew-at}
	 * @param value the value given (never a secret: secret properties are reported as
	 * empty or set)
	 * @param allowed what is allowed
	 */
	public InvalidLeasekeeperPropertyException(String property, String value, String allowed) {
		super("Invalid value '" + value + "' for property '" + property + "': " + allowed);
		this.property = property;
		this.value = value;
		this.allowed = allowed;
	}

	/**
	 * Return the property.
	 * @return the property, in its configuration form
	 */
	public String getProperty() {
		return this.property;
	}

	/**
	 * Return the value that was given.
	 * @return the value
	 */
	public String getValue() {
		return this.value;
	}

	/**
	 * Return what is allowed.
	 * @return a description of the allowed values
	 */
	public String getAllowed() {
		return this.allowed;
	}

}
