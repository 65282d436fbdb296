package dev.leasekeeper.vault;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.LeaseSourceException;

import org.springframework.util.Assert;
import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.support.VaultResponse;

/**
 * The credential of a database static role ({@code database/static-creds/<role>}): no
 * lease — Vault rotates one user's password every {@code rotation_period} and answers
 * {@code ttl}, the seconds to the next rotation. Each read is a grant whose
 * {@link Grant#refreshAfter()} is that {@code ttl} (rounded up) plus a delay drawn over
 * {@code refreshSpread} (Vault rotates at the next tick of its rotation queue, every 5 s,
 * and a fleet should not read all at once), and whose TTL runs one more
 * {@code rotation_period} beyond (the old password keeps serving open connections while
 * the new one is read). A read whose {@code ttl} is 0 — the rotation is due, and Vault
 * has not made it yet — is a transient failure, retried with back-off until Vault has
 * rotated. Nothing is renewed or revoked.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class StaticCredentialSource implements LeaseSource {

	/** The data field with the instant of Vault's last rotation. */
	public static final String LAST_VAULT_ROTATION = "last_vault_rotation";

	private final VaultOperations vault;

	private final String path;

	private final Clock clock;

	private final Duration refreshSpread;

	private final RandomGenerator random;

	/**
	 * Create a new source.
	 * @param vault the Vault operations whose session token is used
	 * @param path the path to read, such as {@code database/static-creds/billing}
	 * @param clock the engine's clock, read before each request is sent
	 * @param refreshSpread how long after the rotation the reads of a fleet are spread
	 * over
	 * @param random where the delays are drawn from
	 */
	public StaticCredentialSource(VaultOperations vault, String path, Clock clock, Duration refreshSpread,
			RandomGenerator random) {
		Assert.notNull(vault, "'vault' must not be null");
		Assert.hasText(path, "'path' must not be empty");
		Assert.isTrue(!refreshSpread.isNegative(), "'refreshSpread' must not be negative");
		this.vault = vault;
		this.path = path;
		this.clock = clock;
		this.refreshSpread = refreshSpread;
		this.random = random;
	}

	/**
	 * Return whether a path is a static role's credential.
	 * @param path a Vault path
	 * @return whether it reads {@code <mount>/static-creds/<role>}
	 */
	public static boolean isStatic(@Nullable String path) {
		return path != null && path.strip().replaceAll("^/+|/+$", "").matches(".+/static-creds/[^/]+");
	}

	@Override
	public Grant acquire() throws LeaseSourceException {
		Instant sent = this.clock.instant();
		String what = "read " + this.path;
		VaultResponse response = VaultFailures.call(what,
				() -> this.vault.doWithSession((rest) -> rest.getForObject(this.path, VaultResponse.class)));
		Map<String, Object> data = (response != null) ? response.getData() : null;
		if (data == null || !(data.get("password") instanceof String) || !(data.get("username") instanceof String)) {
			throw LeaseSourceException.transientFailure("malformed-response",
					what + ": Vault answered without a username and password", null);
		}
		long ttl = seconds(data.get("ttl"));
		long period = seconds(data.get("rotation_period"));
		if (ttl < 0 || period <= 0) {
			throw LeaseSourceException.transientFailure("malformed-response",
					what + ": Vault answered without ttl and rotation_period (is this a static role?)", null);
		}
		if (ttl == 0) {
			// the rotation is due: Vault makes it at the next tick of its queue
			throw LeaseSourceException.transientFailure("not-rotated-yet", what
					+ ": Vault has not rotated the password yet (last rotation " + data.get(LAST_VAULT_ROTATION) + ")",
					null);
		}
		Map<String, Object> kept = new LinkedHashMap<>();
		data.forEach((key, value) -> {
			if (value != null) {
				kept.put(key, value);
			}
		});
		Duration delay = Duration.ofMillis(500)
			.plusNanos((long) (this.random.nextDouble() * this.refreshSpread.toNanos()));
		// Vault truncates ttl to whole seconds: the rotation is due within ttl + 1 s
		Duration refreshAfter = Duration.ofSeconds(ttl + 1).plus(delay);
		List<String> warnings = (response.getWarnings() != null) ? response.getWarnings() : List.of();
		return new Grant(this.path, Duration.ofSeconds(ttl + period).plus(delay), false, kept, warnings, sent,
				refreshAfter);
	}

	@Override
	public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
		// a static credential is read again, never renewed: never called
		throw LeaseSourceException.permanent("not-renewable",
				"renew " + this.path + ": a static role's credential is not a lease");
	}

	@Override
	public void revoke(Grant current) {
		// Vault keeps the user: nothing to revoke
	}

	@Override
	public boolean revokes() {
		return false;
	}

	@Override
	public String describe() {
		return this.path;
	}

	private static long seconds(@Nullable Object value) {
		if (value instanceof Number number) {
			return (long) Math.floor(number.doubleValue());
		}
		if (value instanceof String text) {
			try {
				return (long) Math.floor(Double.parseDouble(text));
			}
			catch (NumberFormatException ex) {
				return -1;
			}
		}
		return -1;
	}

}
