package dev.leasekeeper.vault;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.LeaseSourceException;

import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.util.Assert;
import org.springframework.vault.authentication.ClientAuthentication;
import org.springframework.vault.authentication.LoginToken;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.support.VaultResponse;
import org.springframework.vault.support.VaultToken;
import org.springframework.web.client.RestOperations;

/**
 * The Vault login token as a lease: obtained by logging in through Spring Vault's
 * {@link ClientAuthentication} (token, AppRole, ...), renewed with
 * {@code auth/token/renew-self} and revoked with {@code auth/token/revoke-self}. The
 * token itself is the grant's {@code token} field, never its lease id, so that it stays
 * out of logs.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class TokenLeaseSource implements LeaseSource {

	/** The lease id of every token grant: the token is not named in logs. */
	public static final String LEASE_ID = "auth/token/self";

	/** The data field that holds the token. */
	public static final String TOKEN = "token";

	private final ClientAuthentication authentication;

	private final RestOperations vault;

	private final Clock clock;

	private final boolean revocable;

	/**
	 * Create a new source.
	 * @param authentication how to log in
	 * @param vault Vault's API without a session (the token is sent per call)
	 * @param clock the engine's clock, read before each request is sent
	 */
	public TokenLeaseSource(ClientAuthentication authentication, RestOperations vault, Clock clock) {
		Assert.notNull(authentication, "'authentication' must not be null");
		Assert.notNull(vault, "'vault' must not be null");
		Assert.notNull(clock, "'clock' must not be null");
		this.authentication = authentication;
		this.vault = vault;
		this.clock = clock;
		// a token given in configuration is not Leasekeeper's to revoke: the next start
		// needs it
		this.revocable = !(authentication instanceof TokenAuthentication);
	}

	@Override
	public Grant acquire() throws LeaseSourceException {
		Instant sent = this.clock.instant();
		VaultToken token = VaultFailures.call("log in", this.authentication::login);
		if (token == null) {
			throw LeaseSourceException.permanent("no-token", "log in: no token was returned");
		}
		if (token instanceof LoginToken login && !login.getLeaseDuration().isZero()) {
			return grant(token.getToken(), login.getLeaseDuration(), login.isRenewable(), List.of(), sent);
		}
		// a configured token says nothing of its TTL: ask Vault
		return lookUp(token.getToken(), sent);
	}

	/**
	 * Look the token up ({@code auth/token/lookup-self}) without renewing it: a 403 means
	 * the token itself is gone, an answer that the token is valid.
	 */
	@Override
	public Grant lookup(Grant current) throws LeaseSourceException {
		return lookUp(token(current), this.clock.instant());
	}

	private Grant lookUp(String token, Instant sent) throws LeaseSourceException {
		VaultResponse lookup = VaultFailures.call("look up the token",
				() -> this.vault
					.exchange("auth/token/lookup-self", HttpMethod.GET, withToken(token, null), VaultResponse.class)
					.getBody());
		Map<String, Object> data = (lookup != null) ? lookup.getData() : null;
		if (data == null || !(data.get("ttl") instanceof Number ttl)) {
			throw LeaseSourceException.transientFailure("malformed-response",
					"look up the token: Vault answered without a ttl", null);
		}
		boolean renewable = Boolean.TRUE.equals(data.get("renewable"));
		long seconds = Math.max(0, ttl.longValue());
		if (seconds == 0 && data.get("expire_time") != null) {
			// in its last second: a TTL of 0 means "never expires" only for a token
			// without an expire_time (a root token)
			seconds = 1;
		}
		return grant(token, Duration.ofSeconds(seconds), renewable, List.of(), sent);
	}

	@Override
	public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
		Instant sent = this.clock.instant();
		String token = token(current);
		Map<String, Object> body = (increment != null) ? Map.of("increment", increment.toSeconds()) : Map.of();
		VaultResponse response = VaultFailures.call("renew the token",
				() -> this.vault
					.exchange("auth/token/renew-self", HttpMethod.POST, withToken(token, body), VaultResponse.class)
					.getBody());
		Map<String, Object> auth = (response != null) ? response.getAuth() : null;
		if (auth == null || !(auth.get("lease_duration") instanceof Number ttl) || ttl.longValue() <= 0) {
			throw LeaseSourceException.transientFailure("malformed-response",
					"renew the token: Vault answered without a lease_duration", null);
		}
		List<String> warnings = (response.getWarnings() != null) ? response.getWarnings() : List.of();
		return grant(token, Duration.ofSeconds(ttl.longValue()), !Boolean.FALSE.equals(auth.get("renewable")), warnings,
				sent);
	}

	@Override
	public void revoke(Grant current) throws LeaseSourceException {
		if (!this.revocable) {
			return;
		}
		String token = token(current);
		VaultFailures.call("revoke the token", () -> this.vault.exchange("auth/token/revoke-self", HttpMethod.POST,
				withToken(token, null), Void.class));
	}

	@Override
	public String describe() {
		return "auth/token";
	}

	@Override
	public boolean revokes() {
		return this.revocable;
	}

	/**
	 * Return whether Leasekeeper revokes the tokens of this source: only those it
	 * obtained by logging in, never a token given in configuration.
	 * @return whether its tokens are revoked on shutdown and when replaced
	 */
	public boolean isRevocable() {
		return this.revocable;
	}

	private static Grant grant(String token, Duration ttl, boolean renewable, List<String> warnings, Instant sent) {
		return new Grant(LEASE_ID, ttl, renewable, Map.of(TOKEN, token), warnings, sent);
	}

	private static String token(Grant grant) throws LeaseSourceException {
		Object token = grant.data().get(TOKEN);
		if (!(token instanceof String value) || value.isEmpty()) {
			throw LeaseSourceException.permanent("no-token", "the token grant holds no token");
		}
		return value;
	}

	private static HttpEntity<@Nullable Object> withToken(String token, @Nullable Object body) {
		HttpHeaders headers = new HttpHeaders();
		headers.set("X-Vault-Token", token);
		return new HttpEntity<>(body, headers);
	}

}
