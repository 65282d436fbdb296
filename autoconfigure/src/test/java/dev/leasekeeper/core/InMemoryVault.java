package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.testkit.VaultDurations;

/**
 * A Vault in memory that answers as VAULT_SEMANTICS.md §1–2 says: TTLs in whole seconds,
 * max TTL measured from the issue time with both instants truncated to seconds, capping
 * with Vault's warning, {@code renewable} staying true at the ceiling, Vault's error
 * messages classified as the Vault lease sources classify them, and secret leases dying
 * with the token that created them. Faults can be scripted.
 */
final class InMemoryVault {

	static final Duration SYSTEM_MAX_TTL = Duration.ofHours(768);

	private final Supplier<Instant> clock;

	private final Map<String, Role> roles = new HashMap<>();

	private final Map<String, Lease> leases = new HashMap<>();

	private final Map<String, Lease> tokens = new HashMap<>();

	private final Map<String, Lease> tokensBySecret = new HashMap<>();

	private final List<Call> journal = new ArrayList<>();

	private final java.util.Set<String> deniedReads = new java.util.HashSet<>();

	private int counter;

	private boolean down;

	private @Nullable LeaseSourceException nextFailure;

	private int failuresLeft;

	InMemoryVault(Supplier<Instant> clock) {
		this.clock = clock;
	}

	// --- configuration and faults
	// --------------------------------------------------------------------

	InMemoryVault role(String name, Duration defaultTtl, Duration maxTtl) {
		this.roles.put(name, new Role(defaultTtl, maxTtl, false));
		return this;
	}

	InMemoryVault nonRenewableRole(String name, Duration defaultTtl) {
		this.roles.put(name, new Role(defaultTtl, SYSTEM_MAX_TTL, true));
		return this;
	}

	/**
	 * Reads of {@code database/creds/<role>} answer 403 to a valid token: its policy
	 * lacks the path.
	 */
	void denyReads(String role) {
		this.deniedReads.add(role);
	}

	void allowReads(String role) {
		this.deniedReads.remove(role);
	}

	/** Connections refused until {@link #up()}. */
	void down() {
		this.down = true;
	}

	void up() {
		this.down = false;
	}

	boolean isDown() {
		return this.down;
	}

	/** The next {@code count} calls fail with {@code failure}. */
	void failNext(int count, LeaseSourceException failure) {
		this.failuresLeft = count;
		this.nextFailure = failure;
	}

	/**
	 * Revoke a lease or a token out of band (a token with every lease obtained under it).
	 * @return the ids of every lease and token this revocation ended
	 */
	List<String> revokeOutOfBand(String leaseId) {
		Lease lease = this.leases.get(leaseId);
		if (lease == null) {
			lease = this.tokens.get(leaseId);
		}
		List<String> ended = new java.util.ArrayList<>();
		if (lease != null) {
			if (!lease.revoked) {
				ended.add(lease.id);
			}
			for (Lease child : lease.children) {
				if (!child.revoked) {
					ended.add(child.id);
				}
			}
			revoke(lease);
		}
		return ended;
	}

	List<Call> journal() {
		return this.journal;
	}

	long count(String operation) {
		return this.journal.stream().filter((call) -> call.operation().equals(operation)).count();
	}

	/** Vault's expiry of a lease or token, or {@code null} when unknown. */
	@Nullable Instant expiryOf(String leaseId) {
		Lease lease = this.leases.containsKey(leaseId) ? this.leases.get(leaseId) : this.tokens.get(leaseId);
		return (lease != null) ? lease.expireAt : null;
	}

	/** The instant Vault would end a lease: its own expiry, or its token's if earlier. */
	@Nullable Instant effectiveExpiryOf(String leaseId) {
		Lease lease = this.leases.containsKey(leaseId) ? this.leases.get(leaseId) : this.tokens.get(leaseId);
		if (lease == null) {
			return null;
		}
		Instant parent = (lease.parent != null) ? effectiveExpiryOf(lease.parent.id) : null;
		return (parent != null && parent.isBefore(lease.expireAt)) ? parent : lease.expireAt;
	}

	/** Every secret lease and token id ever issued. */
	java.util.Set<String> issued() {
		java.util.Set<String> ids = new java.util.HashSet<>(this.leases.keySet());
		ids.addAll(this.tokens.keySet());
		return ids;
	}

	/**
	 * Whether Vault would still renew a token for a full {@code window}: not at its max
	 * TTL.
	 */
	boolean belowCeiling(String accessor, Duration window) {
		Lease token = this.tokens.get(accessor);
		return token != null && token.maxTtl != null
				&& Duration.between(truncate(now()), token.issued.plus(token.maxTtl)).compareTo(window) >= 0;
	}

	boolean isAlive(String leaseId) {
		Lease lease = this.leases.containsKey(leaseId) ? this.leases.get(leaseId) : this.tokens.get(leaseId);
		return lease != null && !lease.revoked && now().isBefore(lease.expireAt)
				&& (lease.parent == null || isAlive(lease.parent.id));
	}

	// --- lease sources
	// -------------------------------------------------------------------------------

	/**
	 * Secret leases of a database role, obtained under the token {@code token} supplies
	 * (or none).
	 */
	LeaseSource secrets(String role, Supplier<@Nullable String> token) {
		return new LeaseSource() {

			@Override
			public Grant acquire() throws LeaseSourceException {
				Instant sent = now();
				enter("acquire", role);
				Lease parent = authorize(token.get());
				if (InMemoryVault.this.deniedReads.contains(role)) {
					throw LeaseSourceException.unauthorized("permission-denied", "permission denied");
				}
				Role definition = InMemoryVault.this.roles.get(role);
				if (definition == null) {
					throw LeaseSourceException.permanent("unknown-role", "unknown role: " + role);
				}
				String id = "database/creds/" + role + "/" + nextId();
				Duration ttl = capToMax(definition.defaultTtl, definition.maxTtl);
				Lease lease = new Lease(id, role, truncate(now()), now().plus(ttl), parent, !definition.nonRenewable);
				InMemoryVault.this.leases.put(id, lease);
				if (parent != null) {
					parent.children.add(lease);
				}
				return new Grant(id, ttl, lease.renewable,
						Map.of("username", "v-" + role + "-" + id.hashCode(), "password", "secret-" + nextId()),
						List.of(), sent);
			}

			@Override
			public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
				Instant sent = now();
				enter("renew", current.leaseId());
				authorize(token.get());
				Lease lease = InMemoryVault.this.leases.get(current.leaseId());
				Role definition = InMemoryVault.this.roles.get(role);
				return InMemoryVault.this.renew(lease, increment, definition.defaultTtl, definition.maxTtl, sent);
			}

			@Override
			public void revoke(Grant current) throws LeaseSourceException {
				enter("revoke", current.leaseId());
				authorize(token.get());
				Lease lease = InMemoryVault.this.leases.get(current.leaseId());
				if (lease != null) {
					InMemoryVault.this.revoke(lease);
				}
			}

			@Override
			public String describe() {
				return "database/creds/" + role;
			}

		};
	}

	/** Login tokens with the given TTL and explicit max TTL. */
	LeaseSource tokens(Duration ttl, Duration maxTtl) {
		return new LeaseSource() {

			@Override
			public Grant acquire() throws LeaseSourceException {
				Instant sent = now();
				enter("login", "approle");
				String accessor = "accessor-" + nextId();
				Duration granted = capToMax(ttl, maxTtl);
				Lease token = new Lease(accessor, "token", truncate(now()), now().plus(granted), null, true);
				token.secret = "hvs." + nextId();
				token.maxTtl = effectiveMax(maxTtl);
				InMemoryVault.this.tokens.put(accessor, token);
				InMemoryVault.this.tokensBySecret.put(token.secret, token);
				return new Grant(accessor, granted, true, Map.of("token", token.secret), List.of(), sent);
			}

			@Override
			public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
				Instant sent = now();
				enter("renew-self", current.leaseId());
				Lease token = authorize((String) current.data().get("token"));
				return InMemoryVault.this.renew(token, increment, ttl, maxTtl, sent);
			}

			@Override
			public Grant lookup(Grant current) throws LeaseSourceException {
				Instant sent = now();
				enter("lookup-self", current.leaseId());
				Lease token = authorize((String) current.data().get("token"));
				return new Grant(token.id, Duration.between(now(), token.expireAt), true, Map.of(), List.of(), sent);
			}

			@Override
			public void revoke(Grant current) throws LeaseSourceException {
				enter("revoke-self", current.leaseId());
				Lease token = InMemoryVault.this.tokens.get(current.leaseId());
				if (token != null && !token.revoked) {
					InMemoryVault.this.revoke(token);
				}
			}

			@Override
			public String describe() {
				return "auth/token";
			}

		};
	}

	// --- Vault's rules
	// ---------------------------------------------------------------------------------

	private Grant renew(@Nullable Lease lease, @Nullable Duration increment, Duration defaultTtl, Duration maxTtl,
			Instant sent) throws LeaseSourceException {
		if (lease == null || lease.revoked) {
			throw LeaseSourceException.gone("lease-not-found", "lease not found");
		}
		if (lease.parent != null && (lease.parent.revoked || !now().isBefore(lease.parent.expireAt))) {
			// a lease dies with the token that created it
			throw LeaseSourceException.gone("lease-not-found", "lease not found");
		}
		if (!now().isBefore(lease.expireAt)) {
			throw LeaseSourceException.gone("lease-expired", "lease expired");
		}
		if (!lease.renewable) {
			throw LeaseSourceException.permanent("lease-not-renewable", "lease is not renewable");
		}
		Duration max = effectiveMax(maxTtl);
		Duration remaining = Duration.between(truncate(now()), lease.issued.plus(max));
		if (remaining.isNegative() || remaining.isZero()) {
			throw LeaseSourceException.permanent("past-max-ttl", "past the max TTL, cannot renew");
		}
		Duration wanted = (increment != null && increment.toSeconds() > 0) ? Duration.ofSeconds(increment.toSeconds())
				: defaultTtl;
		List<String> warnings = new ArrayList<>();
		Duration ttl = wanted;
		if (wanted.compareTo(remaining) > 0) {
			ttl = remaining;
			warnings.add("TTL of \"" + VaultDurations.format(wanted) + "\" exceeded the effective max_ttl of \""
					+ VaultDurations.format(remaining) + "\"; TTL value is capped accordingly");
		}
		if (ttl.compareTo(Duration.ofSeconds(1)) < 0) {
			ttl = Duration.ofSeconds(1);
		}
		lease.expireAt = now().plus(ttl);
		return new Grant(lease.id, ttl, true, Map.of(), warnings, sent);
	}

	private Duration capToMax(Duration ttl, Duration maxTtl) {
		Duration max = effectiveMax(maxTtl);
		return (ttl.compareTo(max) > 0) ? max : ttl;
	}

	private static Duration effectiveMax(Duration maxTtl) {
		return (maxTtl.isZero() || maxTtl.compareTo(SYSTEM_MAX_TTL) > 0) ? SYSTEM_MAX_TTL : maxTtl;
	}

	private @Nullable Lease authorize(@Nullable String token) throws LeaseSourceException {
		if (token == null) {
			return null;
		}
		Lease lease = this.tokensBySecret.get(token);
		if (lease == null || lease.revoked || !now().isBefore(lease.expireAt)) {
			throw LeaseSourceException.unauthorized("permission-denied", "permission denied");
		}
		return lease;
	}

	private void revoke(Lease lease) {
		lease.revoked = true;
		for (Lease child : lease.children) {
			child.revoked = true;
		}
	}

	private void enter(String operation, String target) throws LeaseSourceException {
		this.journal.add(new Call(now(), operation, target));
		if (this.down) {
			throw LeaseSourceException.transientFailure("io", "connection refused", null);
		}
		if (this.failuresLeft > 0 && this.nextFailure != null) {
			this.failuresLeft--;
			throw this.nextFailure;
		}
	}

	private Instant now() {
		return this.clock.get();
	}

	private String nextId() {
		return Integer.toString(++this.counter, 36) + "x" + Integer.toHexString((this.counter * 0x9E3779B9));
	}

	private static Instant truncate(Instant instant) {
		return instant.truncatedTo(ChronoUnit.SECONDS);
	}

	record Call(Instant at, String operation, String target) {
	}

	private record Role(Duration defaultTtl, Duration maxTtl, boolean nonRenewable) {
	}

	private static final class Lease {

		private final String id;

		private final String role;

		private final Instant issued;

		private Instant expireAt;

		private final @Nullable Lease parent;

		private final boolean renewable;

		private final List<Lease> children = new ArrayList<>();

		private boolean revoked;

		private @Nullable String secret;

		private @Nullable Duration maxTtl;

		Lease(String id, String role, Instant issued, Instant expireAt, @Nullable Lease parent, boolean renewable) {
			this.id = id;
			this.role = role;
			this.issued = issued;
			this.expireAt = expireAt;
			this.parent = parent;
			this.renewable = renewable;
		}

	}

}
