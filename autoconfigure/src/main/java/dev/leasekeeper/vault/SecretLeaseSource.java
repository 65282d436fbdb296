package dev.leasekeeper.vault;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.LeaseSourceException;

import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.util.Assert;
import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.support.VaultResponse;

/**
 * A secret lease read from a Vault path (such as {@code database/creds/orders}), renewed
 * through {@code PUT sys/leases/renew} and revoked through {@code PUT sys/leases/revoke},
 * with the token the {@link VaultOperations}' session hands out.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class SecretLeaseSource implements LeaseSource {

	private final VaultOperations vault;

	private final String path;

	private final Clock clock;

	private final @Nullable Supplier<String> token;

	/**
	 * Create a new source.
	 * @param vault the Vault operations whose session token is used
	 * @param path the path to read, such as {@code database/creds/orders}
	 * @param clock the engine's clock, read before each request is sent
	 */
	public SecretLeaseSource(VaultOperations vault, String path, Clock clock) {
		this(vault, path, clock, null);
	}

	/**
	 * Create a new source whose calls carry a token of their own instead of the session's
	 * (a fleet's group token: the lease dies with the token that created it).
	 * @param vault the Vault operations
	 * @param path the path to read, such as {@code database/creds/orders}
	 * @param clock the engine's clock, read before each request is sent
	 * @param token the token of each call, or {@code null} for the session's
	 * @since 0.2.0
	 */
	public SecretLeaseSource(VaultOperations vault, String path, Clock clock, @Nullable Supplier<String> token) {
		Assert.notNull(vault, "'vault' must not be null");
		Assert.hasText(path, "'path' must not be empty");
		Assert.notNull(clock, "'clock' must not be null");
		this.vault = vault;
		this.path = path;
		this.clock = clock;
		this.token = token;
	}

	private <T> @Nullable T exchange(String path, HttpMethod method, @Nullable Object body, Class<T> type) {
		Supplier<String> token = this.token;
		if (token == null) {
			return this.vault
				.doWithSession((rest) -> rest.exchange(path, method, new HttpEntity<>(body), type).getBody());
		}
		HttpHeaders headers = new HttpHeaders();
		headers.set("X-Vault-Token", token.get());
		return this.vault
			.doWithVault((rest) -> rest.exchange(path, method, new HttpEntity<>(body, headers), type).getBody());
	}

	@Override
	public Grant acquire() throws LeaseSourceException {
		Instant sent = this.clock.instant();
		VaultResponse response = VaultFailures.call("read " + this.path,
				() -> exchange(this.path, HttpMethod.GET, null, VaultResponse.class));
		Grant grant = toGrant("read " + this.path, response, sent, null);
		if (grant.leaseId().isEmpty()) {
			throw LeaseSourceException.permanent("not-a-lease",
					"read " + this.path + ": Vault answered without a lease id; the path holds no lease to keep alive");
		}
		return grant;
	}

	@Override
	public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
		Instant sent = this.clock.instant();
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("lease_id", current.leaseId());
		if (increment != null) {
			body.put("increment", increment.toSeconds());
		}
		VaultResponse response = VaultFailures.call("renew " + this.path,
				() -> exchange("sys/leases/renew", HttpMethod.PUT, body, VaultResponse.class));
		return toGrant("renew " + this.path, response, sent, current);
	}

	@Override
	public void revoke(Grant current) throws LeaseSourceException {
		VaultFailures.call("revoke " + this.path,
				() -> exchange("sys/leases/revoke", HttpMethod.PUT, Map.of("lease_id", current.leaseId()), Void.class));
	}

	@Override
	public String describe() {
		return this.path;
	}

	private Grant toGrant(String what, @Nullable VaultResponse response, Instant sent, @Nullable Grant current)
			throws LeaseSourceException {
		if (response == null) {
			throw LeaseSourceException.transientFailure("empty-response", what + ": Vault answered without a body",
					null);
		}
		long seconds = response.getLeaseDuration();
		if (seconds <= 0 || seconds > Duration.ofDays(3650).toSeconds()) {
			throw LeaseSourceException.transientFailure("malformed-response",
					what + ": Vault answered with lease_duration " + seconds, null);
		}
		String leaseId = (response.getLeaseId() != null) ? response.getLeaseId() : "";
		if (current != null && !leaseId.isEmpty() && !leaseId.equals(current.leaseId())) {
			throw LeaseSourceException.transientFailure("malformed-response",
					what + ": Vault answered for another lease", null);
		}
		Map<String, Object> data = (response.getData() != null) ? response.getData() : Map.of();
		List<String> warnings = (response.getWarnings() != null) ? response.getWarnings() : List.of();
		Map<String, Object> kept = new LinkedHashMap<>();
		data.forEach((key, value) -> {
			if (value != null) {
				kept.put(key, value);
			}
		});
		return new Grant((current != null) ? current.leaseId() : leaseId, Duration.ofSeconds(seconds),
				response.isRenewable(), kept, warnings, sent);
	}

}
