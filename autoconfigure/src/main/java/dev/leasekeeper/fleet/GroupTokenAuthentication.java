package dev.leasekeeper.fleet;

import java.time.Duration;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.vault.VaultException;
import org.springframework.vault.authentication.ClientAuthentication;
import org.springframework.vault.authentication.LoginToken;
import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.support.VaultResponse;
import org.springframework.vault.support.VaultToken;
import org.springframework.web.client.HttpClientErrorException;

import dev.leasekeeper.core.LeaseSourceException;

/**
 * How a leader gets the group token, the token the shared lease is obtained with (a lease
 * dies with the token that created it, so it must not be any instance's own): the token
 * published beside the grant when it is still valid ({@code lookup-self} answers), else a
 * new one from the group's token role ({@code auth/token/create/<role>}, whose
 * {@code orphan} and {@code period} make it outlive whoever created it), made with the
 * instance's own token. A new token is published with the next grant.
 * <p>
 * One is made for each term of leadership, and takes the published token over only for
 * its first token: when the leader asks again, the published token is the one it holds,
 * at its ceiling (a role's {@code explicit_max_ttl}), refused or gone, and giving it back
 * would only keep it to its end, with the shared grant that dies with it.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
final class GroupTokenAuthentication implements ClientAuthentication {

	private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
		.getLog(GroupTokenAuthentication.class);

	private final GroupStore store;

	private final VaultOperations vault;

	private final String tokenRole;

	private final String group;

	/** Whether this term has had its first token. */
	private volatile boolean loggedIn;

	GroupTokenAuthentication(GroupStore store, VaultOperations vault, String tokenRole, String group) {
		this.store = store;
		this.vault = vault;
		this.tokenRole = tokenRole;
		this.group = group;
	}

	@Override
	public VaultToken login() throws VaultException {
		if (!this.loggedIn) {
			VaultToken published = published();
			if (published != null) {
				this.loggedIn = true;
				return published;
			}
		}
		VaultResponse created = this.vault
			.doWithSession((rest) -> rest.postForObject("auth/token/create/" + this.tokenRole,
					Map.of("display_name", "leasekeeper-" + this.group), VaultResponse.class));
		Map<String, Object> auth = (created != null) ? created.getAuth() : null;
		if (auth == null || !(auth.get("client_token") instanceof String token)
				|| !(auth.get("lease_duration") instanceof Number ttl)) {
			throw new VaultException(
					"auth/token/create/" + this.tokenRole + ": Vault answered without a token and its lease_duration");
		}
		this.loggedIn = true;
		return LoginToken.renewable(VaultToken.of(token), Duration.ofSeconds(ttl.longValue()));
	}

	/** The published token if Vault says it is valid, else {@code null}. */
	private @Nullable VaultToken published() {
		try {
			Publication publication = this.store.read();
			String token = (publication != null) ? publication.token() : null;
			Duration ttl = (token != null) ? lookUp(token) : null;
			return (ttl != null) ? LoginToken.renewable(VaultToken.of(token), ttl) : null;
		}
		catch (LeaseSourceException ex) {
			throw new VaultException("Cannot read the group's published token: " + ex.getMessage(), ex);
		}
	}

	/** The token's TTL if Vault says it is valid, {@code null} if it is gone. */
	private @Nullable Duration lookUp(String token) {
		HttpHeaders headers = new HttpHeaders();
		headers.set("X-Vault-Token", token);
		VaultResponse lookup = this.vault.doWithVault((rest) -> {
			try {
				return rest
					.exchange("auth/token/lookup-self", HttpMethod.GET, new HttpEntity<>(headers), VaultResponse.class)
					.getBody();
			}
			catch (HttpClientErrorException.Forbidden ex) {
				return null;
			}
		});
		Map<String, Object> data = (lookup != null) ? lookup.getData() : null;
		if (data == null || !(data.get("ttl") instanceof Number ttl) || ttl.longValue() <= 0) {
			return null;
		}
		return Duration.ofSeconds(ttl.longValue());
	}

}
