package dev.leasekeeper.testkit;

/**
 * An answer with an error status and Vault's {@code {"errors":[...]}} body.
 */
final class VaultError extends RuntimeException {

	static final String PERMISSION_DENIED = "1 error occurred:\n\t* permission denied\n\n";

	private final int status;

	VaultError(int status, String message) {
		super(message, null, false, false);
		this.status = status;
	}

	static VaultError badRequest(String message) {
		return new VaultError(400, message);
	}

	static VaultError permissionDenied() {
		return new VaultError(403, PERMISSION_DENIED);
	}

	int status() {
		return this.status;
	}

}
