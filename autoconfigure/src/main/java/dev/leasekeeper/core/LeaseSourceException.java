package dev.leasekeeper.core;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A failure of a {@link LeaseSource}, classified by what the engine should do about it.
 * The message and the error class must never contain a secret.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public class LeaseSourceException extends Exception {

	private final Kind kind;

	private final String errorClass;

	private final boolean credentialGone;

	/**
	 * Create a new exception.
	 * @param kind what the engine should do about it
	 * @param errorClass a short, bounded name for the failure, such as {@code http-503}
	 * or {@code lease-not-found}, used in logs, events and metric tags
	 * @param message the description, without secrets
	 * @param credentialGone whether the store says the credential itself no longer works
	 * (revoked or expired), so it must not be used until replaced
	 * @param cause the cause, if any
	 */
	public LeaseSourceException(Kind kind, String errorClass, String message, boolean credentialGone,
			@Nullable Throwable cause) {
		super(message, cause);
		Assert.notNull(kind, "'kind' must not be null");
		Assert.hasText(errorClass, "'errorClass' must not be empty");
		this.kind = kind;
		this.errorClass = errorClass;
		this.credentialGone = credentialGone;
	}

	/**
	 * Create a transient failure: the store was unreachable or busy; worth retrying
	 * within the lease's budget.
	 * @param errorClass the error class
	 * @param message the description
	 * @param cause the cause, if any
	 * @return the exception
	 */
	public static LeaseSourceException transientFailure(String errorClass, String message, @Nullable Throwable cause) {
		return new LeaseSourceException(Kind.TRANSIENT, errorClass, message, false, cause);
	}

	/**
	 * Create a permanent refusal for a credential that still works until its expiry (not
	 * renewable, past the max TTL): no retry will help, a new grant is needed.
	 * @param errorClass the error class
	 * @param message the description
	 * @return the exception
	 */
	public static LeaseSourceException permanent(String errorClass, String message) {
		return new LeaseSourceException(Kind.PERMANENT, errorClass, message, false, null);
	}

	/**
	 * Create a permanent refusal for a credential that no longer works (revoked, expired,
	 * unknown).
	 * @param errorClass the error class
	 * @param message the description
	 * @return the exception
	 */
	public static LeaseSourceException gone(String errorClass, String message) {
		return new LeaseSourceException(Kind.PERMANENT, errorClass, message, true, null);
	}

	/**
	 * Create an authorization failure: the token behind the call is gone or lacks policy.
	 * @param errorClass the error class
	 * @param message the description
	 * @return the exception
	 */
	public static LeaseSourceException unauthorized(String errorClass, String message) {
		return new LeaseSourceException(Kind.UNAUTHORIZED, errorClass, message, false, null);
	}

	/**
	 * Return what the engine should do about this failure.
	 * @return the kind
	 */
	public Kind getKind() {
		return this.kind;
	}

	/**
	 * Return the short, bounded name of this failure.
	 * @return the error class
	 */
	public String getErrorClass() {
		return this.errorClass;
	}

	/**
	 * Return whether the credential itself no longer works.
	 * @return {@code true} if the store revoked or expired it
	 */
	public boolean isCredentialGone() {
		return this.credentialGone;
	}

	/**
	 * What the engine should do about a failure.
	 */
	public enum Kind {

		/**
		 * I/O error, timeout, 429, 5xx except 501, 412: retry within the lease's budget.
		 */
		TRANSIENT,

		/**
		 * Lease gone, not renewable, past its max TTL: never retried, a new grant is
		 * obtained.
		 */
		PERMANENT,

		/**
		 * 403: the token is gone or lacks policy; re-authenticate, then obtain a new
		 * grant.
		 */
		UNAUTHORIZED

	}

}
