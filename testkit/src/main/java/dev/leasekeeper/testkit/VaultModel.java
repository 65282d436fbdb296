package dev.leasekeeper.testkit;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * Vault's lease and token semantics (VAULT_SEMANTICS.md §1–5), independent of HTTP. Every
 * method is synchronized: the HTTP server answers on several threads and the expiry loop
 * runs on its own.
 */
final class VaultModel {

	static final Duration SYSTEM_MAX_TTL = Duration.ofHours(768);

	static final Duration SYSTEM_DEFAULT_TTL = Duration.ofHours(768);

	/**
	 * Vault's PostgreSQL plugin sets {@code VALID UNTIL} this long after the lease's
	 * expiry.
	 */
	static final Duration VALID_UNTIL_GRACE = Duration.ofSeconds(5);

	private static final String ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	private final Clock clock;

	private final DatabaseBackend database;

	private final SecureRandom random = new SecureRandom();

	private final Map<String, Token> tokensById = new ConcurrentHashMap<>();

	private final Map<String, Token> tokensByAccessor = new ConcurrentHashMap<>();

	private final Map<String, SecretLease> leases = new ConcurrentHashMap<>();

	private final Map<String, DatabaseRole> databaseRoles = new ConcurrentHashMap<>();

	private final Map<String, AppRole> appRoles = new ConcurrentHashMap<>();

	private final java.util.Set<String> secrets = ConcurrentHashMap.newKeySet();

	VaultModel(Clock clock, DatabaseBackend database, String rootToken) {
		this.clock = clock;
		this.database = database;
		Token root = new Token(rootToken, randomString(24), List.of("root"), now(), null, null, null, null, false, null,
				"auth/token/root");
		root.expireAt = null;
		register(root);
	}

	// --- configuration
	// ---------------------------------------------------------------------------------

	synchronized void databaseRole(String name, Duration defaultTtl, Duration maxTtl) {
		this.databaseRoles.put(name, new DatabaseRole(defaultTtl, maxTtl));
	}

	synchronized void appRole(String name, String roleId, String secretId, Duration tokenTtl, Duration tokenMaxTtl,
			@Nullable Duration tokenPeriod, List<String> policies) {
		this.appRoles.put(roleId, new AppRole(name, roleId, secretId, tokenTtl, tokenMaxTtl, tokenPeriod, policies));
		this.secrets.add(secretId);
	}

	synchronized void changeRole(String name, Duration defaultTtl, Duration maxTtl) {
		if (this.databaseRoles.containsKey(name)) {
			this.databaseRoles.put(name, new DatabaseRole(defaultTtl, maxTtl));
			return;
		}
		AppRole role = this.appRoles.values()
			.stream()
			.filter((candidate) -> candidate.name.equals(name))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No database or AppRole role named '" + name + "'"));
		role.tokenTtl = defaultTtl;
		role.tokenMaxTtl = maxTtl;
	}

	// --- tokens
	// -----------------------------------------------------------------------------------------

	/** The token behind a request: 403 if it is unknown, revoked or expired. */
	synchronized Token authenticate(@Nullable String id) {
		Token token = (id != null) ? this.tokensById.get(id) : null;
		if (token == null || !token.isAlive(now())) {
			throw VaultError.permissionDenied();
		}
		return token;
	}

	synchronized @Nullable String accessorOf(@Nullable String id) {
		Token token = (id != null) ? this.tokensById.get(id) : null;
		return (token != null) ? token.accessor : null;
	}

	synchronized Token createToken(Token parent, @Nullable Duration ttl, @Nullable Duration explicitMaxTtl,
			@Nullable Duration period, boolean renewable, List<String> policies) {
		Duration creationTtl = (period != null && !period.isZero()) ? period
				: (ttl != null && !ttl.isZero()) ? ttl : SYSTEM_DEFAULT_TTL;
		Token token = new Token("hvs." + randomString(24), randomString(24), policies, now(), creationTtl,
				explicitMaxTtl, null, period, renewable, parent, "auth/token/create");
		token.granted = cap(token, creationTtl).ttl;
		token.expireAt = now().plus(token.granted);
		parent.children.add(token);
		register(token);
		return token;
	}

	synchronized Token login(@Nullable String roleId, @Nullable String secretId) {
		if (roleId == null || roleId.isEmpty()) {
			throw VaultError.badRequest("missing role_id");
		}
		AppRole role = this.appRoles.get(roleId);
		if (role == null || secretId == null || !role.secretId.equals(secretId)) {
			throw VaultError.badRequest("invalid role or secret ID");
		}
		Duration creationTtl = (role.period != null && !role.period.isZero()) ? role.period : role.tokenTtl;
		Token token = new Token("hvs." + randomString(24), randomString(24), role.policies, now(), creationTtl, null,
				role, role.period, true, null, "auth/approle/login");
		token.granted = cap(token, creationTtl).ttl;
		token.expireAt = now().plus(token.granted);
		register(token);
		return token;
	}

	synchronized Granted renewSelf(Token token, @Nullable Duration increment) {
		if (token.expireAt == null || !token.renewable) {
			throw VaultError.badRequest("lease is not renewable");
		}
		Duration wanted;
		Duration period = token.period();
		if (period != null && !period.isZero()) {
			wanted = period;
		}
		else if (increment != null && !increment.isZero()) {
			wanted = increment;
		}
		else {
			wanted = token.defaultTtl();
		}
		Granted granted = cap(token, wanted);
		token.granted = granted.ttl;
		token.expireAt = now().plus(granted.ttl);
		token.lastRenewal = now();
		return granted;
	}

	synchronized void revokeToken(Token token) {
		token.revoked = true;
		for (Token child : token.children) {
			revokeToken(child);
		}
		for (SecretLease lease : token.leases) {
			revokeLease(lease);
		}
	}

	synchronized @Nullable Token tokenByAccessor(String accessor) {
		return this.tokensByAccessor.get(accessor);
	}

	synchronized @Nullable Token tokenById(String id) {
		return this.tokensById.get(id);
	}

	// --- secret leases
	// ----------------------------------------------------------------------------------

	synchronized SecretLease createCredentials(Token token, String roleName) {
		DatabaseRole role = this.databaseRoles.get(roleName);
		if (role == null) {
			throw VaultError.badRequest("unknown role: " + roleName);
		}
		String displayName = "token";
		String username = ("v-" + displayName + "-" + truncate(roleName, 8) + "-" + randomString(20) + "-"
				+ now().getEpochSecond());
		username = truncate(username, 63);
		String password = randomString(20).substring(0, 16) + "-" + randomString(4);
		SecretLease lease = new SecretLease("database/creds/" + roleName + "/" + randomString(24), roleName, username,
				password, now(), token);
		lease.granted = capSecret(lease, role.defaultTtl).ttl;
		lease.expireAt = now().plus(lease.granted);
		this.database.create(roleName, username, password, lease.expireAt.plus(VALID_UNTIL_GRACE));
		this.leases.put(lease.id, lease);
		this.secrets.add(password);
		token.leases.add(lease);
		return lease;
	}

	synchronized Granted renewLease(@Nullable String leaseId, @Nullable Duration increment) {
		SecretLease lease = findForRenewal(leaseId);
		DatabaseRole role = this.databaseRoles.get(lease.role);
		Duration wanted = (increment != null && !increment.isZero()) ? increment
				: (role != null) ? role.defaultTtl : SYSTEM_DEFAULT_TTL;
		Granted granted = capSecret(lease, wanted);
		lease.expireAt = now().plus(granted.ttl);
		lease.lastRenewal = now();
		this.database.renew(lease.username, lease.expireAt.plus(VALID_UNTIL_GRACE));
		return granted;
	}

	synchronized void revokeLease(@Nullable String leaseId) {
		requireLeaseId(leaseId);
		SecretLease lease = this.leases.get(leaseId);
		if (lease != null) {
			revokeLease(lease);
		}
	}

	synchronized SecretLease lookupLease(@Nullable String leaseId) {
		requireLeaseId(leaseId);
		SecretLease lease = this.leases.get(leaseId);
		if (lease == null || lease.revoked) {
			throw VaultError.badRequest("invalid lease");
		}
		return lease;
	}

	synchronized @Nullable SecretLease lease(String leaseId) {
		return this.leases.get(leaseId);
	}

	/**
	 * What the expiry loop does: revoke every lease and token whose expiry has passed.
	 */
	synchronized void expire() {
		Instant now = now();
		for (SecretLease lease : this.leases.values()) {
			if (!lease.revoked && !now.isBefore(lease.expireAt)) {
				revokeLease(lease);
			}
		}
		for (Token token : this.tokensById.values()) {
			if (!token.revoked && token.expireAt != null && !now.isBefore(token.expireAt)) {
				revokeToken(token);
			}
		}
	}

	synchronized void dropDatabaseUser(String leaseId) {
		SecretLease lease = this.leases.get(leaseId);
		if (lease != null) {
			this.database.revoke(lease.username);
		}
	}

	// --- Vault's rules
	// ----------------------------------------------------------------------------------

	private SecretLease findForRenewal(@Nullable String leaseId) {
		requireLeaseId(leaseId);
		if (leaseId.startsWith("auth/")) {
			throw VaultError.badRequest("tokens cannot be renewed through this endpoint");
		}
		SecretLease lease = this.leases.get(leaseId);
		if (lease == null || lease.revoked) {
			throw VaultError.badRequest("lease not found");
		}
		if (!now().isBefore(lease.expireAt)) {
			throw VaultError.badRequest("lease expired");
		}
		return lease;
	}

	private static void requireLeaseId(@Nullable String leaseId) {
		if (leaseId == null || leaseId.isEmpty()) {
			throw VaultError.badRequest("lease_id must be specified");
		}
	}

	private void revokeLease(SecretLease lease) {
		if (!lease.revoked) {
			lease.revoked = true;
			this.database.revoke(lease.username);
		}
	}

	private Granted capSecret(SecretLease lease, Duration wanted) {
		DatabaseRole role = this.databaseRoles.get(lease.role);
		return cap(lease.issued, smallestPositive(SYSTEM_MAX_TTL, (role != null) ? role.maxTtl : null), wanted);
	}

	private Granted cap(Token token, Duration wanted) {
		Duration roleMax = (token.appRole != null) ? token.appRole.tokenMaxTtl : null;
		return cap(token.issued, smallestPositive(SYSTEM_MAX_TTL, smallestPositive(roleMax, token.explicitMaxTtl)),
				wanted);
	}

	/**
	 * VAULT_SEMANTICS.md §1: max TTL from the issue time, both instants truncated to
	 * seconds.
	 */
	private Granted cap(Instant issued, Duration max, Duration wanted) {
		Instant limit = issued.truncatedTo(ChronoUnit.SECONDS).plus(max);
		Duration remaining = Duration.between(now().truncatedTo(ChronoUnit.SECONDS), limit);
		if (remaining.isNegative() || remaining.isZero()) {
			throw VaultError.badRequest("past the max TTL, cannot renew");
		}
		Duration whole = Duration.ofSeconds(wanted.toSeconds());
		if (whole.compareTo(remaining) > 0) {
			String warning = "TTL of \"" + VaultDurations.format(whole) + "\" exceeded the effective max_ttl of \""
					+ VaultDurations.format(remaining) + "\"; TTL value is capped accordingly";
			return new Granted(remaining, List.of(warning));
		}
		return new Granted(whole.isZero() ? Duration.ofSeconds(1) : whole, List.of());
	}

	private static @Nullable Duration smallestPositive(@Nullable Duration first, @Nullable Duration second) {
		if (first == null || first.isZero()) {
			return second;
		}
		if (second == null || second.isZero()) {
			return first;
		}
		return (first.compareTo(second) <= 0) ? first : second;
	}

	/**
	 * Every secret value the simulator issued or was configured with: tokens, accessors,
	 * passwords, secret ids.
	 */
	java.util.Set<String> secrets() {
		return java.util.Set.copyOf(this.secrets);
	}

	private void register(Token token) {
		this.secrets.add(token.id);
		this.secrets.add(token.accessor);
		this.tokensById.put(token.id, token);
		this.tokensByAccessor.put(token.accessor, token);
	}

	Instant now() {
		return this.clock.instant();
	}

	private String randomString(int length) {
		StringBuilder result = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			result.append(ALPHANUMERIC.charAt(this.random.nextInt(ALPHANUMERIC.length())));
		}
		return result.toString();
	}

	private static String truncate(String value, int length) {
		return (value.length() > length) ? value.substring(0, length) : value;
	}

	record Granted(Duration ttl, List<String> warnings) {
	}

	private record DatabaseRole(Duration defaultTtl, Duration maxTtl) {
	}

	private static final class AppRole {

		private final String name;

		private final String roleId;

		private final String secretId;

		private volatile Duration tokenTtl;

		private volatile Duration tokenMaxTtl;

		private final @Nullable Duration period;

		private final List<String> policies;

		AppRole(String name, String roleId, String secretId, Duration tokenTtl, Duration tokenMaxTtl,
				@Nullable Duration period, List<String> policies) {
			this.name = name;
			this.roleId = roleId;
			this.secretId = secretId;
			this.tokenTtl = tokenTtl;
			this.tokenMaxTtl = tokenMaxTtl;
			this.period = period;
			this.policies = List.copyOf(policies);
		}

	}

	static final class Token {

		final String id;

		final String accessor;

		final List<String> policies;

		final Instant issued;

		private final @Nullable Duration creationTtl;

		final @Nullable Duration explicitMaxTtl;

		private final @Nullable AppRole appRole;

		private final @Nullable Duration period;

		final boolean renewable;

		final @Nullable Token parent;

		final String path;

		@Nullable Instant expireAt;

		@Nullable Instant lastRenewal;

		Duration granted = Duration.ZERO;

		boolean revoked;

		final List<Token> children = new ArrayList<>();

		final List<SecretLease> leases = new ArrayList<>();

		Token(String id, String accessor, List<String> policies, Instant issued, @Nullable Duration creationTtl,
				@Nullable Duration explicitMaxTtl, @Nullable AppRole appRole, @Nullable Duration period,
				boolean renewable, @Nullable Token parent, String path) {
			this.id = id;
			this.accessor = accessor;
			this.policies = List.copyOf(policies);
			this.issued = issued;
			this.creationTtl = creationTtl;
			this.explicitMaxTtl = explicitMaxTtl;
			this.appRole = appRole;
			this.period = period;
			this.renewable = renewable;
			this.parent = parent;
			this.path = path;
		}

		boolean isAlive(Instant now) {
			return !this.revoked && (this.expireAt == null || now.isBefore(this.expireAt));
		}

		/** AppRole tokens take TTL and period from the role at each renewal. */
		Duration defaultTtl() {
			if (this.appRole != null) {
				return this.appRole.tokenTtl;
			}
			return (this.creationTtl != null) ? this.creationTtl : SYSTEM_DEFAULT_TTL;
		}

		@Nullable Duration period() {
			return (this.appRole != null) ? this.appRole.period : this.period;
		}

		@Nullable Duration creationTtl() {
			return this.creationTtl;
		}

		Map<String, Object> lookup(Instant now) {
			Map<String, Object> data = new LinkedHashMap<>();
			data.put("accessor", this.accessor);
			data.put("creation_time", this.issued.getEpochSecond());
			data.put("creation_ttl", (this.creationTtl != null) ? this.creationTtl.toSeconds() : 0);
			data.put("expire_time", (this.expireAt != null) ? this.expireAt.toString() : null);
			data.put("explicit_max_ttl", (this.explicitMaxTtl != null) ? this.explicitMaxTtl.toSeconds() : 0);
			data.put("id", this.id);
			data.put("issue_time", this.issued.toString());
			data.put("num_uses", 0);
			data.put("orphan", this.parent == null);
			data.put("path", this.path);
			data.put("policies", this.policies);
			data.put("renewable", this.renewable && this.expireAt != null);
			data.put("ttl",
					(this.expireAt != null) ? Math.max(0, Duration.between(now, this.expireAt).toSeconds()) : 0);
			data.put("type", "service");
			if (period() != null) {
				data.put("period", period().toSeconds());
			}
			return data;
		}

	}

	static final class SecretLease {

		final String id;

		final String role;

		final String username;

		final String password;

		final Instant issued;

		final Token token;

		Instant expireAt;

		Duration granted = Duration.ZERO;

		@Nullable Instant lastRenewal;

		boolean revoked;

		SecretLease(String id, String role, String username, String password, Instant issued, Token token) {
			this.id = id;
			this.role = role;
			this.username = username;
			this.password = password;
			this.issued = issued;
			this.token = token;
			this.expireAt = issued;
		}

	}

}
