package dev.leasekeeper.testkit;

import java.time.Instant;

/**
 * The database behind the simulator's database secrets engine: creates, extends and drops
 * the dynamic roles.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public interface DatabaseBackend {

	/**
	 * Create a login role, as Vault's creation statements do.
	 * @param role the name of the Vault role it is created for
	 * @param username the new role's name
	 * @param password its password
	 * @param validUntil the instant after which it can no longer log in
	 */
	void create(String role, String username, String password, Instant validUntil);

	/**
	 * Extend a login role, as Vault's renewal statements do.
	 * @param username the role's name
	 * @param validUntil the new instant after which it can no longer log in
	 */
	void renew(String username, Instant validUntil);

	/**
	 * Revoke a login role, as Vault's default revocation does: revoke its privileges and
	 * {@code CONNECT}, then drop it. Open sessions are not terminated.
	 * @param username the role's name
	 */
	void revoke(String username);

	/**
	 * Set the password of a static role's existing user, as Vault's rotation statements
	 * do ({@code ALTER ROLE ... WITH PASSWORD}); creates the user with the Vault role's
	 * grant first when it does not exist yet (the simulator stands in for the
	 * administrator who made it). Open sessions are not terminated. Does nothing by
	 * default.
	 * @param role the name of the Vault static role
	 * @param username the user's name
	 * @param password its new password
	 */
	default void setPassword(String role, String username, String password) {
	}

	/**
	 * A backend that touches no database: credentials are made up and never checked.
	 */
	DatabaseBackend NONE = new DatabaseBackend() {

		@Override
		public void create(String role, String username, String password, Instant validUntil) {
		}

		@Override
		public void renew(String username, Instant validUntil) {
		}

		@Override
		public void revoke(String username) {
		}

	};

}
