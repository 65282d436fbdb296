package dev.leasekeeper.vault;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseSnapshot;

import org.springframework.util.Assert;
import org.springframework.vault.VaultException;
import org.springframework.vault.authentication.SessionManager;
import org.springframework.vault.support.VaultToken;

/**
 * A {@link SessionManager} that hands out the token the engine keeps alive, so that there
 * is exactly one renewal stream for it: Leasekeeper's own.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class LeaseSessionManager implements SessionManager {

	private final LeaseRenewer token;

	/**
	 * Create a new session manager.
	 * @param token the token lease
	 */
	public LeaseSessionManager(LeaseRenewer token) {
		Assert.notNull(token, "'token' must not be null");
		this.token = token;
	}

	@Override
	public VaultToken getSessionToken() {
		LeaseSnapshot current = this.token.current();
		if (current.data().get(TokenLeaseSource.TOKEN) instanceof String value && !value.isEmpty()) {
			return VaultToken.of(value);
		}
		throw new VaultException(
				"Leasekeeper holds no valid Vault token (lease '" + current.name() + "' is " + current.state() + ")");
	}

}
