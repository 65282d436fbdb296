package dev.leasekeeper.core;

/**
 * Thrown when a {@link RenewalPolicy} setting has a value that is not allowed. Names the
 * setting in its configuration form (such as {@code renew-at}), the value and what is
 * allowed, so that a caller can point at the property that holds it.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class InvalidPolicyException extends IllegalArgumentException {

	private final String setting;

	private final String value;

	private final String allowed;

	/**
	 * Create a new exception.
	 * @param setting the setting, in its configuration form
	 * @param value the value that was given
	 * @param allowed a description of the values that are allowed
	 */
	public InvalidPolicyException(String setting, Object value, String allowed) {
		super("Invalid value '" + value + "' for " + setting + ": " + allowed);
		this.setting = setting;
		this.value = String.valueOf(value);
		this.allowed = allowed;
	}

	/**
	 * Return the setting, in its configuration form, such as {@code retry.max-interval}.
	 * @return the setting
	 */
	public String getSetting() {
		return this.setting;
	}

	/**
	 * Return the value that was given.
	 * @return the value
	 */
	public String getValue() {
		return this.value;
	}

	/**
	 * Return a description of the values that are allowed.
	 * @return what is allowed
	 */
	public String getAllowed() {
		return this.allowed;
	}

}
