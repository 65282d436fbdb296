package dev.leasekeeper.vault;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseSourceException;

import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.support.VaultResponse;

/**
 * How long the token of somebody else's session manager has left: {@code lookup-self}
 * through the application's Vault client (a read: the token's owner alone renews it).
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class FollowedTokenLookup implements Callable<@Nullable Duration> {

	private final VaultOperations vault;

	/**
	 * Create a new lookup.
	 * @param vault the Vault client whose session token is followed
	 */
	public FollowedTokenLookup(VaultOperations vault) {
		this.vault = vault;
	}

	/**
	 * Look the token up.
	 * @return its time left, or {@code null} if it does not expire
	 * @throws LeaseSourceException if Vault cannot tell, or refuses the token
	 */
	@Override
	public @Nullable Duration call() throws LeaseSourceException {
		VaultResponse lookup = VaultFailures.call("look up the token", () -> this.vault.read("auth/token/lookup-self"));
		Map<String, Object> data = (lookup != null) ? lookup.getData() : null;
		if (data == null || !(data.get("ttl") instanceof Number ttl)) {
			throw LeaseSourceException.transientFailure("malformed-response",
					"look up the token: Vault answered without a ttl", null);
		}
		return (ttl.longValue() > 0) ? Duration.ofSeconds(ttl.longValue()) : null;
	}

}
