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

	/** The PKI secrets engine at {@code pki/}. */
	private final PkiEngine pki;

	private final Map<String, AppRole> appRoles = new ConcurrentHashMap<>();

	/**
	 * Kubernetes auth roles by name, as {@code auth/kubernetes/role/<name>} defines them.
	 */
	private final Map<String, KubernetesRole> kubernetesRoles = new ConcurrentHashMap<>();

	/**
	 * Response-wrapping tokens not yet unwrapped: the token each one wraps, until its TTL
	 * ends.
	 */
	private final Map<String, Wrapped> wrapped = new ConcurrentHashMap<>();

	/**
	 * Cert auth entries ({@code auth/cert/certs/<name>}) trusting the PKI engine's CA, by
	 * name.
	 */
	private final Map<String, AppRole> certRoles = new ConcurrentHashMap<>();

	/**
	 * Static roles of the database engine ({@code database/static-roles/<name>}) by name.
	 */
	private final Map<String, StaticRole> staticRoles = new ConcurrentHashMap<>();

	/** Vault's rotation queue is checked every 5 s ({@code queueTickInterval}). */
	static final Duration ROTATION_TICK = Duration.ofSeconds(5);

	private @Nullable Instant lastRotationTick;

	/** GitHub personal access tokens the simulated GitHub API knows, by token. */
	private final Map<String, GitHubUser> gitHubUsers = new ConcurrentHashMap<>();

	/** JWT auth roles ({@code auth/jwt/role/<name>}) by name. */
	private final Map<String, JwtRole> jwtRoles = new ConcurrentHashMap<>();

	/**
	 * The key pair of the JWT issuer the JWT auth method trusts
	 * ({@code jwt_validation_pubkeys}).
	 */
	private java.security.@Nullable KeyPair jwtIssuer;

	/** Userpass users by (lower-case) name: their password and their tokens' settings. */
	private final Map<String, User> users = new ConcurrentHashMap<>();

	/** The service account tokens the cluster has issued and not invalidated, by JWT. */
	private final Map<String, ServiceAccount> serviceAccountTokens = new ConcurrentHashMap<>();

	private final java.util.Set<String> secrets = ConcurrentHashMap.newKeySet();

	private final Map<String, Policy> policies = new ConcurrentHashMap<>();

	/** Token roles ({@code auth/token/roles/<name>}). */
	private final Map<String, TokenRole> tokenRoles = new ConcurrentHashMap<>();

	/** The KV version 2 engine mounted at {@code secret/}. */
	private final KvEngine kv;

	/** Whether {@link #APPLICATION_POLICY} follows the database roles (until written). */
	private boolean applicationPolicyDerived = true;

	/**
	 * The policy the simulator declares for an application: README's, over every database
	 * role it serves.
	 */
	static final String APPLICATION_POLICY = "leasekeeper-app";

	VaultModel(Clock clock, DatabaseBackend database, String rootToken) {
		this.clock = clock;
		this.pki = new PkiEngine(clock);
		this.kv = new KvEngine(clock);
		this.database = database;
		this.policies.put("default", Policy.parse("default", Policy.DEFAULT));
		this.policies.put(APPLICATION_POLICY,
				Policy.parse(APPLICATION_POLICY, Policy.application(List.of(), List.of())));
		Token root = new Token(rootToken, randomString(24), List.of("root"), now(), null, null, null, null, false, null,
				"auth/token/root", "root", null);
		root.expireAt = null;
		register(root);
	}

	// --- configuration
	// ---------------------------------------------------------------------------------

	synchronized void databaseRole(String name, Duration defaultTtl, Duration maxTtl) {
		this.databaseRoles.put(name, new DatabaseRole(defaultTtl, maxTtl));
		deriveApplicationPolicy();
	}

	synchronized void pkiRole(String name, PkiEngine.Role role) {
		this.pki.role(name, role);
		deriveApplicationPolicy();
	}

	PkiEngine pki() {
		return this.pki;
	}

	KvEngine kv() {
		return this.kv;
	}

	private void deriveApplicationPolicy() {
		if (this.applicationPolicyDerived) {
			this.policies.put(APPLICATION_POLICY, Policy.parse(APPLICATION_POLICY,
					Policy.application(this.databaseRoles.keySet(), this.staticRoles.keySet(), this.pki.roleNames())));
		}
	}

	// --- policies
	// ---------------------------------------------------------------------------------------

	synchronized void writePolicy(String name, String text) {
		if (name.equals("root")) {
			throw VaultError.badRequest("cannot update \"root\" policy");
		}
		Policy policy = Policy.parse(name, text);
		this.policies.put(name, policy);
		if (name.equals(APPLICATION_POLICY)) {
			this.applicationPolicyDerived = false;
		}
	}

	synchronized void deletePolicy(String name) {
		if (name.equals("root") || name.equals("default")) {
			throw VaultError.badRequest("cannot delete \"" + name + "\" policy");
		}
		this.policies.remove(name);
		if (name.equals(APPLICATION_POLICY)) {
			this.applicationPolicyDerived = false;
		}
	}

	synchronized List<String> policyNames() {
		java.util.TreeSet<String> names = new java.util.TreeSet<>(this.policies.keySet());
		names.add("root");
		return List.copyOf(names);
	}

	synchronized @Nullable Policy policy(String name) {
		return this.policies.get(name);
	}

	/**
	 * Vault's ACL check: 403 with the multierror unless one of the token's policies, as
	 * they read now, grants the capability on the path.
	 */
	synchronized void authorize(Token token, String path, String capability) {
		if (token.policies.contains("root")) {
			return;
		}
		List<Policy> held = token.policies.stream().map(this.policies::get).filter(java.util.Objects::nonNull).toList();
		if (!Policy.allows(held, path, capability)) {
			throw VaultError.permissionDenied();
		}
	}

	synchronized void appRole(String name, String roleId, String secretId, Duration tokenTtl, Duration tokenMaxTtl,
			@Nullable Duration tokenPeriod, List<String> policies) {
		this.appRoles.put(roleId,
				new AppRole(name, roleId, secretId, tokenTtl, tokenMaxTtl, tokenPeriod, sanitize(policies, true)));
		this.secrets.add(secretId);
	}

	synchronized void kubernetesRole(String name, List<String> serviceAccountNames, List<String> namespaces,
			Duration tokenTtl, Duration tokenMaxTtl, List<String> policies) {
		this.kubernetesRoles.put(name, new KubernetesRole(List.copyOf(serviceAccountNames), List.copyOf(namespaces),
				new AppRole(name, "kubernetes/" + name, "", tokenTtl, tokenMaxTtl, null, sanitize(policies, true))));
	}

	/**
	 * Issue a service account token as the cluster does: a JWT whose claims name the
	 * namespace and the service account (its signature is not checked: Vault's kubernetes
	 * auth asks the cluster's TokenReview API whether the token is valid).
	 */
	synchronized String serviceAccountToken(String namespace, String name) {
		String uid = java.util.UUID.randomUUID().toString();
		java.util.Base64.Encoder base64 = java.util.Base64.getUrlEncoder().withoutPadding();
		String header = "{\"alg\":\"RS256\",\"kid\":\"simulator\"}";
		String claims = "{\"iss\":\"kubernetes/serviceaccount\",\"kubernetes.io/serviceaccount/namespace\":\""
				+ namespace + "\",\"kubernetes.io/serviceaccount/service-account.name\":\"" + name
				+ "\",\"kubernetes.io/serviceaccount/service-account.uid\":\"" + uid
				+ "\",\"sub\":\"system:serviceaccount:" + namespace + ":" + name + "\"}";
		String jwt = base64.encodeToString(header.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "."
				+ base64.encodeToString(claims.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "."
				+ randomString(43);
		this.serviceAccountTokens.put(jwt, new ServiceAccount(namespace, name, uid));
		this.secrets.add(jwt);
		return jwt;
	}

	/**
	 * The cluster no longer vouches for a service account token (rotated, or deleted).
	 */
	synchronized void invalidateServiceAccountToken(String jwt) {
		this.serviceAccountTokens.remove(jwt);
	}

	/**
	 * Log in with a service account token ({@code auth/kubernetes/login}), checked in the
	 * order of the plugin's {@code pathLogin}: the parameters, the role, the claims
	 * against the role's bound names and namespaces, then the cluster's TokenReview.
	 */
	synchronized Token kubernetesLogin(@Nullable String roleName, @Nullable String jwt) {
		if (roleName == null || roleName.isEmpty()) {
			throw VaultError.badRequest("missing role");
		}
		if (jwt == null || jwt.isEmpty()) {
			throw VaultError.badRequest("missing jwt");
		}
		KubernetesRole role = this.kubernetesRoles.get(roleName);
		if (role == null) {
			throw VaultError.badRequest("invalid role name \"" + roleName + "\"");
		}
		Map<String, Object> claims = jwtClaims(jwt);
		Object namespace = claims.get("kubernetes.io/serviceaccount/namespace");
		Object name = claims.get("kubernetes.io/serviceaccount/service-account.name");
		if (!bound(role.serviceAccountNames(), name)) {
			throw new VaultError(403, "service account name not authorized");
		}
		if (!bound(role.namespaces(), namespace)) {
			throw new VaultError(403, "namespace not authorized");
		}
		ServiceAccount account = this.serviceAccountTokens.get(jwt);
		if (account == null) {
			// the TokenReview failed: a token the cluster no longer vouches for
			throw new VaultError(403, "permission denied");
		}
		AppRole settings = role.token();
		return login(settings, "auth/kubernetes/login", "kubernetes-" + account.namespace() + "-" + account.name(),
				Map.of("role", roleName, "service_account_name", account.name(), "service_account_namespace",
						account.namespace(), "service_account_secret_name", "", "service_account_uid", account.uid()),
				"auth/kubernetes/login/");
	}

	synchronized void user(String username, String password, Duration tokenTtl, Duration tokenMaxTtl,
			List<String> policies) {
		String name = username.toLowerCase(java.util.Locale.ROOT);
		this.users.put(name, new User(password,
				new AppRole(name, "userpass/" + name, "", tokenTtl, tokenMaxTtl, null, sanitize(policies, true))));
		this.secrets.add(password);
	}

	/**
	 * Log in with a username and password ({@code auth/userpass/login/<username>}), as
	 * the builtin's {@code pathLogin}: the name is lower-cased; an unknown user and a
	 * wrong password get the same 400 {@code invalid username or password}.
	 */
	synchronized Token userpassLogin(String username, @Nullable String password) {
		if (password == null || password.isEmpty()) {
			throw new VaultError(500, "missing password");
		}
		String name = username.toLowerCase(java.util.Locale.ROOT);
		User user = this.users.get(name);
		if (user == null || !java.security.MessageDigest.isEqual(
				user.password().getBytes(java.nio.charset.StandardCharsets.UTF_8),
				password.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
			throw VaultError.badRequest("invalid username or password");
		}
		AppRole settings = user.token();
		return login(settings, "auth/userpass/login/" + name, "userpass-" + name, Map.of("username", name),
				"auth/userpass/login/" + name + "/");
	}

	/**
	 * Issue the token of a login: the method's token TTL (capped by its max TTL), a lease
	 * id under the login path.
	 */
	private Token login(AppRole settings, String path, String displayName, Map<String, String> metadata,
			String leaseIdPrefix) {
		Token token = new Token("hvs." + randomString(24), randomString(24), settings.policies, now(), null, null,
				settings, null, true, null, path, displayName, metadata);
		token.granted = cap(token, settings.tokenTtl).ttl;
		token.creationTtl = token.granted;
		token.expireAt = now().plus(token.granted);
		token.leaseId = leaseIdPrefix + randomHex(40);
		register(token);
		return token;
	}

	private static boolean bound(List<String> allowed, @Nullable Object value) {
		if (allowed.contains("*")) {
			return true;
		}
		return value instanceof String text && allowed.contains(text);
	}

	/**
	 * The claims of a JWT, or a 403 as the plugin's validator answers a malformed one.
	 */
	/**
	 * A GitHub user and their personal access token, as the GitHub API the method asks
	 * knows them; {@code member} says whether they are in the organization the method is
	 * configured with ({@code auth/github/config organization=...}).
	 */
	synchronized void gitHubUser(String accessToken, String login, boolean member, Duration tokenTtl,
			Duration tokenMaxTtl, List<String> policies) {
		this.gitHubUsers.put(accessToken, new GitHubUser(login, member,
				new AppRole(login, "github/" + login, "", tokenTtl, tokenMaxTtl, null, sanitize(policies, true))));
		this.secrets.add(accessToken);
	}

	/**
	 * Log in with a GitHub personal access token ({@code auth/github/login}), as the
	 * builtin's {@code pathLogin}: GitHub's {@code /user} refuses an unknown token (Vault
	 * answers 500 with go-github's error), a user outside the organization is refused
	 * ({@code verifyCredentials} returns an error: 500); metadata {@code username} and
	 * {@code org}, display name {@code github-<login>}.
	 */
	synchronized Token gitHubLogin(@Nullable String accessToken) {
		GitHubUser user = (accessToken != null) ? this.gitHubUsers.get(accessToken) : null;
		if (user == null) {
			throw new VaultError(500,
					"1 error occurred:\n\t* GET https://api.github.com/user: 401 Bad credentials []\n\n");
		}
		if (!user.member()) {
			throw new VaultError(500, "1 error occurred:\n\t* user is not part of required org\n\n");
		}
		AppRole settings = user.token();
		return login(settings, "auth/github/login", "github-" + user.login(),
				Map.of("username", user.login(), "org", "leasekeeper"), "auth/github/login/");
	}

	/**
	 * Wrap a token as {@code X-Vault-Wrap-TTL} on {@code auth/token/create} does: the
	 * token lives in the cubbyhole of a single-use wrapping token valid for
	 * {@code wrapTtl}.
	 */
	synchronized String wrap(Token wrappedToken, Duration wrapTtl) {
		String wrapping = "hvs." + randomString(24);
		this.wrapped.put(wrapping, new Wrapped(wrappedToken, now().plus(wrapTtl)));
		this.secrets.add(wrapping);
		return wrapping;
	}

	/**
	 * {@code sys/wrapping/unwrap} with the wrapping token: the wrapped token, once; a
	 * wrapping token used before, expired or made up gets 400
	 * {@code wrapping token is not valid or does not exist}.
	 */
	synchronized Token unwrap(@Nullable String wrapping) {
		Wrapped entry = (wrapping != null) ? this.wrapped.remove(wrapping) : null;
		if (entry == null || !now().isBefore(entry.expireAt())) {
			throw VaultError.badRequest("wrapping token is not valid or does not exist");
		}
		return entry.token();
	}

	/**
	 * Add a static role: Vault sets the user's password at once, then every
	 * {@code rotationPeriod}, at the first tick of its rotation queue after it is due.
	 */
	synchronized void staticRole(String name, String username, Duration rotationPeriod) {
		if (rotationPeriod.compareTo(Duration.ofSeconds(5)) < 0) {
			throw VaultError.badRequest("rotation_period must be 5 seconds or more");
		}
		StaticRole role = new StaticRole(username, rotationPeriod);
		this.staticRoles.put(name, role);
		rotate(name, role);
		deriveApplicationPolicy();
	}

	/**
	 * {@code database/static-creds/<name>}: the current password and the time to its
	 * rotation.
	 */
	synchronized Map<String, Object> staticCredentials(String name) {
		StaticRole role = this.staticRoles.get(name);
		if (role == null) {
			throw VaultError.badRequest("unknown role: " + name);
		}
		Map<String, Object> data = new java.util.LinkedHashMap<>();
		data.put("last_vault_rotation", role.lastRotation.toString());
		data.put("password", role.password);
		data.put("rotation_period", role.rotationPeriod.toSeconds());
		long ttl = Math.max(0, Duration.between(now(), role.lastRotation.plus(role.rotationPeriod)).toSeconds());
		data.put("ttl", ttl);
		data.put("username", role.username);
		return data;
	}

	/** {@code database/rotate-role/<name>}: rotate now. */
	synchronized void rotateRole(String name) {
		StaticRole role = this.staticRoles.get(name);
		if (role == null) {
			throw VaultError.badRequest("no static role found for role name");
		}
		rotate(name, role);
	}

	/** The static roles whose rotation is due at this tick of the rotation queue. */
	private void rotateDue(Instant now) {
		if (this.lastRotationTick != null && now.isBefore(this.lastRotationTick.plus(ROTATION_TICK))) {
			return;
		}
		this.lastRotationTick = now;
		this.staticRoles.forEach((name, role) -> {
			if (!now.isBefore(role.lastRotation.plus(role.rotationPeriod))) {
				rotate(name, role);
			}
		});
	}

	private void rotate(String name, StaticRole role) {
		String password = randomString(20);
		this.database.setPassword(name, role.username, password);
		role.password = password;
		role.lastRotation = now();
		this.secrets.add(password);
	}

	synchronized void certRole(String name, Duration tokenTtl, Duration tokenMaxTtl, List<String> policies) {
		this.certRoles.put(name,
				new AppRole(name, "cert/" + name, "", tokenTtl, tokenMaxTtl, null, sanitize(policies, true)));
	}

	/**
	 * Log in with the TLS client certificate ({@code auth/cert/login}), as the builtin's
	 * {@code pathLogin}: the certificate must chain to an entry's trusted certificate
	 * (here the PKI engine's CA, which every entry trusts) and be valid; {@code name}
	 * narrows the entries tried; otherwise 400
	 * {@code invalid certificate or no client certificate
	 * supplied}. Display name {@code cert-<entry>}, metadata {@code cert_name},
	 * {@code common_name}, {@code serial_number}.
	 */
	synchronized Token certLogin(@Nullable String name, java.security.cert.@Nullable X509Certificate certificate) {
		String entry = null;
		if (certificate != null && this.pki.signedByCa(certificate)) {
			entry = (name != null && !name.isEmpty()) ? (this.certRoles.containsKey(name) ? name : null)
					: this.certRoles.keySet().stream().sorted().findFirst().orElse(null);
		}
		if (entry == null) {
			throw VaultError.badRequest("invalid certificate or no client certificate supplied");
		}
		AppRole settings = this.certRoles.get(entry);
		String commonName = certificate.getSubjectX500Principal().getName().replaceFirst("^CN=", "");
		return login(settings, "auth/cert/login", "cert-" + entry, Map.of("cert_name", entry, "common_name", commonName,
				"serial_number", certificate.getSerialNumber().toString()), "auth/cert/login/");
	}

	synchronized void jwtRole(String name, String boundAudience, Duration tokenTtl, Duration tokenMaxTtl,
			List<String> policies) {
		this.jwtRoles.put(name, new JwtRole(boundAudience,
				new AppRole(name, "jwt/" + name, "", tokenTtl, tokenMaxTtl, null, sanitize(policies, true))));
	}

	/**
	 * Sign a JWT (RS256) as the identity provider the JWT auth method trusts does: claims
	 * {@code sub}, {@code aud}, {@code iat} and {@code exp}.
	 */
	synchronized String signJwt(String subject, String audience, Duration validity) {
		try {
			java.util.Base64.Encoder base64 = java.util.Base64.getUrlEncoder().withoutPadding();
			long now = now().getEpochSecond();
			String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"simulator\"}";
			String claims = "{\"iss\":\"https://idp.simulator\",\"sub\":\"" + subject + "\",\"aud\":\"" + audience
					+ "\",\"iat\":" + now + ",\"exp\":" + (now + validity.toSeconds()) + "}";
			String signed = base64.encodeToString(header.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "."
					+ base64.encodeToString(claims.getBytes(java.nio.charset.StandardCharsets.UTF_8));
			java.security.Signature signer = java.security.Signature.getInstance("SHA256withRSA");
			signer.initSign(jwtIssuer().getPrivate());
			signer.update(signed.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
			String jwt = signed + "." + base64.encodeToString(signer.sign());
			this.secrets.add(jwt);
			return jwt;
		}
		catch (java.security.GeneralSecurityException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private java.security.KeyPair jwtIssuer() throws java.security.GeneralSecurityException {
		if (this.jwtIssuer == null) {
			java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("RSA");
			generator.initialize(2048);
			this.jwtIssuer = generator.generateKeyPair();
		}
		return this.jwtIssuer;
	}

	/**
	 * Log in with a JWT ({@code auth/jwt/login}), as vault-plugin-auth-jwt's
	 * {@code pathLogin} with {@code jwt_validation_pubkeys}: the role, then the token's
	 * signature against the trusted key, then its expiry and its audience; the token's
	 * {@code sub} is the user ({@code user_claim}).
	 */
	synchronized Token jwtLogin(@Nullable String roleName, @Nullable String jwt) {
		if (roleName == null || roleName.isEmpty()) {
			throw VaultError.badRequest("missing role");
		}
		JwtRole role = this.jwtRoles.get(roleName);
		if (role == null) {
			throw VaultError.badRequest("role \"" + roleName + "\" could not be found");
		}
		if (jwt == null || jwt.isEmpty()) {
			throw VaultError.badRequest("missing token");
		}
		String[] parts = jwt.split("\\.", -1);
		boolean valid = false;
		try {
			if (parts.length == 3) {
				java.security.Signature verifier = java.security.Signature.getInstance("SHA256withRSA");
				verifier.initVerify(jwtIssuer().getPublic());
				verifier.update((parts[0] + "." + parts[1]).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
				valid = verifier.verify(java.util.Base64.getUrlDecoder().decode(parts[2]));
			}
		}
		catch (java.security.GeneralSecurityException | IllegalArgumentException ex) {
			valid = false;
		}
		if (!valid) {
			throw VaultError.badRequest(
					"error validating token: error verifying token signature: no known key successfully validated the token signature");
		}
		Map<String, Object> claims = jwtClaims(jwt);
		if (!(claims.get("exp") instanceof Number exp) || exp.longValue() + 150 < now().getEpochSecond()) {
			// go-jose's leeway: 150 s by default in the plugin
			throw VaultError.badRequest(
					"error validating token: error validating claims: validation failed, token is expired (exp)");
		}
		if (!role.boundAudience().equals(claims.get("aud"))) {
			throw VaultError.badRequest(
					"error validating token: error validating claims: invalid audience (aud) claim: audience provided does not match configured audiences");
		}
		String subject = String.valueOf(claims.get("sub"));
		AppRole settings = role.token();
		return login(settings, "auth/jwt/login", "jwt-" + subject, Map.of("role", roleName), "auth/jwt/login/");
	}

	private static Map<String, Object> jwtClaims(String jwt) {
		String[] parts = jwt.split("\\.", -1);
		if (parts.length != 3) {
			throw new VaultError(403, "malformed JWT: expected 3 parts");
		}
		try {
			byte[] json = java.util.Base64.getUrlDecoder().decode(parts[1]);
			@SuppressWarnings("unchecked")
			Map<String, Object> claims = tools.jackson.databind.json.JsonMapper.builder()
				.build()
				.readValue(json, Map.class);
			return claims;
		}
		catch (IllegalArgumentException | tools.jackson.core.JacksonException ex) {
			throw new VaultError(403, "malformed JWT: its claims are not base64url-encoded JSON");
		}
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

	/**
	 * {@code auth/token/create} as the token store's {@code handleCreateCommon} does it:
	 * no policies inherit the parent's, a non-root parent may only hand out its own,
	 * {@code default} is added (not to a root token), the list is sorted; a root token
	 * without a TTL never expires; the TTL is capped by {@code explicit_max_ttl} with the
	 * warning.
	 */
	synchronized Created createToken(Token parent, @Nullable Duration ttl, @Nullable Duration explicitMaxTtl,
			@Nullable Duration period, boolean renewable, @Nullable List<String> requested, boolean noDefaultPolicy,
			@Nullable String displayName) {
		List<String> policies = sanitize((requested == null || requested.isEmpty()) ? parent.policies : requested,
				!noDefaultPolicy);
		if (!parent.policies.contains("root")) {
			List<String> allowed = sanitize(parent.policies, true);
			if (!allowed.containsAll(policies)) {
				throw VaultError.badRequest("child policies must be subset of parent");
			}
		}
		boolean periodic = period != null && !period.isZero();
		boolean hasTtl = ttl != null && !ttl.isZero();
		String display = (displayName == null || displayName.isBlank()) ? "token" : "token-" + displayName;
		Token token = new Token("hvs." + randomString(24), randomString(24), policies, now(), null, explicitMaxTtl,
				null, period, renewable, parent, "auth/token/create", display, null);
		List<String> warnings = List.of();
		if (!periodic && !hasTtl && policies.equals(List.of("root")) && explicitMaxTtl == null) {
			token.expireAt = null;
		}
		else {
			Granted granted = cap(token, periodic ? period : hasTtl ? ttl : SYSTEM_DEFAULT_TTL);
			token.granted = granted.ttl;
			token.creationTtl = granted.ttl;
			token.expireAt = now().plus(token.granted);
			warnings = granted.warnings;
			token.leaseId = "auth/token/create/" + randomHex(40);
		}
		parent.children.add(token);
		register(token);
		return new Created(token, warnings);
	}

	/**
	 * {@code auth/token/roles/<name>}, written as the token store's
	 * {@code tokenStoreRoleCreateUpdate} keeps it: allowed policies (sanitized, without
	 * {@code default}), {@code orphan}, {@code renewable}, {@code token_period} (or its
	 * older name {@code period}) and {@code token_explicit_max_ttl}.
	 */
	synchronized void tokenRole(String name, List<String> allowedPolicies, boolean orphan, @Nullable Duration period,
			boolean renewable, @Nullable Duration explicitMaxTtl) {
		this.tokenRoles.put(name,
				new TokenRole(name, sanitize(allowedPolicies, false), orphan, period, renewable, explicitMaxTtl));
	}

	synchronized @Nullable TokenRole tokenRole(String name) {
		return this.tokenRoles.get(name);
	}

	/**
	 * {@code auth/token/create/<role>} as {@code handleCreateAgainstRole} does it: an
	 * unknown role is 400 {@code unknown role <name>}; the role's {@code orphan} makes a
	 * token without parent (it outlives its creator); the policies asked for must be
	 * among the role's allowed policies (not the caller's), and are those when none are
	 * asked; {@code default} is added; a role's period makes a periodic token.
	 */
	synchronized Created createTokenAgainstRole(Token caller, String roleName, @Nullable List<String> requested,
			@Nullable Duration ttl, @Nullable String displayName) {
		TokenRole role = this.tokenRoles.get(roleName);
		if (role == null) {
			throw VaultError.badRequest("unknown role " + roleName);
		}
		List<String> wanted = (requested == null || requested.isEmpty()) ? role.allowedPolicies()
				: sanitize(requested, false);
		if (!role.allowedPolicies().isEmpty() && !role.allowedPolicies()
			.containsAll(wanted.stream().filter((policy) -> !policy.equals("default")).toList())) {
			throw VaultError.badRequest("token policies (" + wanted
					+ ") must be subset of the role's allowed policies (" + role.allowedPolicies() + ")");
		}
		if (role.allowedPolicies().isEmpty()) {
			List<String> allowed = sanitize(caller.policies, true);
			if (!caller.policies.contains("root") && !allowed.containsAll(sanitize(wanted, true))) {
				throw VaultError.badRequest("child policies must be subset of parent");
			}
		}
		List<String> policies = sanitize(wanted, true);
		Token parent = role.orphan() ? null : caller;
		boolean periodic = role.period() != null && !role.period().isZero();
		String display = (displayName == null || displayName.isBlank()) ? "token" : "token-" + displayName;
		Token token = new Token("hvs." + randomString(24), randomString(24), policies, now(), null,
				role.explicitMaxTtl(), null, role.period(), role.renewable(), parent, "auth/token/create/" + roleName,
				display, null);
		Granted granted = cap(token,
				periodic ? role.period() : (ttl != null && !ttl.isZero()) ? ttl : SYSTEM_DEFAULT_TTL);
		token.granted = granted.ttl;
		token.creationTtl = granted.ttl;
		token.expireAt = now().plus(token.granted);
		token.leaseId = "auth/token/create/" + roleName + "/" + randomHex(40);
		if (parent != null) {
			parent.children.add(token);
		}
		register(token);
		return new Created(token, granted.warnings);
	}

	synchronized Token login(@Nullable String roleId, @Nullable String secretId) {
		if (roleId == null || roleId.isEmpty()) {
			throw VaultError.badRequest("missing role_id");
		}
		AppRole role = this.appRoles.get(roleId);
		if (role == null) {
			throw VaultError.badRequest("invalid role or secret ID");
		}
		if (secretId == null || secretId.isEmpty()) {
			throw VaultError.badRequest("missing secret_id");
		}
		if (!role.secretId.equals(secretId)) {
			throw VaultError.badRequest("invalid role or secret ID");
		}
		Duration ttl = (role.period != null && !role.period.isZero()) ? role.period : role.tokenTtl;
		Token token = new Token("hvs." + randomString(24), randomString(24), role.policies, now(), null, null, role,
				role.period, true, null, "auth/approle/login", "approle", Map.of("role_name", role.name));
		token.granted = cap(token, ttl).ttl;
		token.creationTtl = token.granted;
		token.expireAt = now().plus(token.granted);
		token.leaseId = "auth/approle/login/" + randomHex(40);
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
		else if (token.appRole != null) {
			wanted = token.appRole.tokenTtl;
		}
		else {
			// RenewToken: with no increment the previous grant's TTL
			wanted = token.granted;
		}
		Granted granted = cap(token, wanted);
		token.granted = granted.ttl;
		token.expireAt = now().plus(granted.ttl);
		token.lastRenewal = now();
		return granted;
	}

	/**
	 * Revoke a token and its children; every lease they created expires at once and is
	 * revoked in the background (by the next {@link #expire()}), so that until then a
	 * renewal of one answers {@code lease expired}.
	 */
	synchronized void revokeToken(Token token) {
		token.revoked = true;
		for (Token child : token.children) {
			revokeToken(child);
		}
		Instant now = now();
		for (SecretLease lease : token.leases) {
			if (!lease.revoked && lease.expireAt.isAfter(now)) {
				lease.expireAt = now;
			}
		}
	}

	synchronized @Nullable Token tokenByLeaseId(String leaseId) {
		return this.tokensById.values()
			.stream()
			.filter((token) -> leaseId.equals(token.leaseId))
			.findFirst()
			.orElse(null);
	}

	/**
	 * {@code LIST sys/leases/lookup/<prefix>}: the next segment of every lease id under
	 * the prefix, folders ending with {@code /}.
	 */
	synchronized List<String> listLeases(String prefix) {
		java.util.TreeSet<String> keys = new java.util.TreeSet<>();
		java.util.stream.Stream<String> ids = java.util.stream.Stream.concat(
				this.leases.values().stream().filter((lease) -> !lease.revoked).map((lease) -> lease.id),
				this.tokensById.values()
					.stream()
					.filter((token) -> !token.revoked && token.leaseId != null)
					.map((token) -> token.leaseId));
		ids.filter((id) -> id.startsWith(prefix)).forEach((id) -> {
			String rest = id.substring(prefix.length());
			int slash = rest.indexOf('/');
			keys.add((slash >= 0) ? rest.substring(0, slash + 1) : rest);
		});
		return List.copyOf(keys);
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
		// the PostgreSQL plugin's default username template
		String username = ("v-" + truncate(token.displayName, 8) + "-" + truncate(roleName, 8) + "-" + randomString(20)
				+ "-" + now().getEpochSecond());
		username = truncate(username, 63);
		String password = password();
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
			return;
		}
		Token token = tokenByLeaseId(leaseId);
		if (token != null) {
			revokeToken(token);
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

	/**
	 * Vault reads an expired lease not yet revoked as not renewable.
	 */
	synchronized boolean isRenewable(SecretLease lease) {
		return now().isBefore(lease.expireAt);
	}

	synchronized @Nullable SecretLease lease(String leaseId) {
		return this.leases.get(leaseId);
	}

	/**
	 * What the expiry loop does: revoke every lease and token whose expiry has passed.
	 */
	synchronized void expire() {
		Instant now = now();
		rotateDue(now);
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
			// the lease entry is looked up before the token check
			Token token = tokenByLeaseId(leaseId);
			throw VaultError.badRequest((token != null && !token.revoked)
					? "tokens cannot be renewed through this endpoint" : "lease not found");
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

	/**
	 * A periodic token is capped only by its {@code explicit_max_ttl}: without one every
	 * renewal grants the period, past the mount's max TTL too.
	 */
	private Granted cap(Token token, Duration wanted) {
		Duration period = token.period();
		if (period != null && !period.isZero()) {
			if (token.explicitMaxTtl == null || token.explicitMaxTtl.isZero()) {
				return new Granted(Duration.ofSeconds(Math.max(1, period.toSeconds())), List.of());
			}
			return cap(token.issued, token.explicitMaxTtl, period);
		}
		Duration roleMax = (token.appRole != null) ? token.appRole.tokenMaxTtl : null;
		return cap(token.issued, smallestPositive(SYSTEM_MAX_TTL, smallestPositive(roleMax, token.explicitMaxTtl)),
				wanted);
	}

	/**
	 * Vault's {@code policyutil.SanitizePolicies}: trimmed, lower-cased, without
	 * duplicates, {@code default} added when asked (never to a root token), sorted.
	 */
	static List<String> sanitize(List<String> policies, boolean addDefault) {
		java.util.TreeSet<String> result = new java.util.TreeSet<>();
		for (String policy : policies) {
			String trimmed = policy.trim().toLowerCase(java.util.Locale.ROOT);
			if (!trimmed.isEmpty()) {
				result.add(trimmed);
			}
		}
		if (addDefault && !result.contains("root")) {
			result.add("default");
		}
		return List.copyOf(result);
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

	/**
	 * A password as Vault's default password policy makes it: 20 characters of letters,
	 * digits and {@code -}, at least one of each kind.
	 */
	private String password() {
		String charset = ALPHANUMERIC + "-";
		while (true) {
			StringBuilder result = new StringBuilder(20);
			for (int i = 0; i < 20; i++) {
				result.append(charset.charAt(this.random.nextInt(charset.length())));
			}
			String candidate = result.toString();
			if (candidate.matches(".*[a-z].*") && candidate.matches(".*[A-Z].*") && candidate.matches(".*[0-9].*")
					&& candidate.contains("-")) {
				return candidate;
			}
		}
	}

	private String randomHex(int length) {
		StringBuilder result = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			result.append(Character.forDigit(this.random.nextInt(16), 16));
		}
		return result.toString();
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

	record TokenRole(String name, List<String> allowedPolicies, boolean orphan, @Nullable Duration period,
			boolean renewable, @Nullable Duration explicitMaxTtl) {

		Map<String, Object> describe() {
			Map<String, Object> data = new LinkedHashMap<>();
			data.put("allowed_policies", this.allowedPolicies);
			data.put("name", this.name);
			data.put("orphan", this.orphan);
			data.put("renewable", this.renewable);
			data.put("token_explicit_max_ttl", (this.explicitMaxTtl != null) ? this.explicitMaxTtl.toSeconds() : 0);
			data.put("token_period", (this.period != null) ? this.period.toSeconds() : 0);
			data.put("path_suffix", "");
			data.put("token_type", "default-service");
			return data;
		}

	}

	record Created(Token token, List<String> warnings) {
	}

	private record DatabaseRole(Duration defaultTtl, Duration maxTtl) {
	}

	/** A Kubernetes auth role: the service accounts it binds and its tokens' settings. */
	private static final class StaticRole {

		private final String username;

		private final Duration rotationPeriod;

		private String password = "";

		private Instant lastRotation = Instant.EPOCH;

		StaticRole(String username, Duration rotationPeriod) {
			this.username = username;
			this.rotationPeriod = rotationPeriod;
		}

	}

	private record Wrapped(Token token, Instant expireAt) {
	}

	private record GitHubUser(String login, boolean member, AppRole token) {
	}

	private record JwtRole(String boundAudience, AppRole token) {
	}

	private record KubernetesRole(List<String> serviceAccountNames, List<String> namespaces, AppRole token) {
	}

	private record ServiceAccount(String namespace, String name, String uid) {
	}

	/** A userpass user: its password and its tokens' settings. */
	private record User(String password, AppRole token) {
	}

	static final class AppRole {

		final String name;

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

		private @Nullable Duration creationTtl;

		final @Nullable Duration explicitMaxTtl;

		private final @Nullable AppRole appRole;

		private final @Nullable Duration period;

		final boolean renewable;

		final @Nullable Token parent;

		final String path;

		final String displayName;

		final @Nullable Map<String, String> meta;

		/** {@code auth/<mount>/<path>/<id>}; none for a token that never expires. */
		@Nullable String leaseId;

		@Nullable Instant expireAt;

		@Nullable Instant lastRenewal;

		Duration granted = Duration.ZERO;

		boolean revoked;

		final List<Token> children = new ArrayList<>();

		final List<SecretLease> leases = new ArrayList<>();

		Token(String id, String accessor, List<String> policies, Instant issued, @Nullable Duration creationTtl,
				@Nullable Duration explicitMaxTtl, @Nullable AppRole appRole, @Nullable Duration period,
				boolean renewable, @Nullable Token parent, String path, String displayName,
				@Nullable Map<String, String> meta) {
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
			this.displayName = displayName;
			this.meta = meta;
		}

		/** An AppRole token's entity: one per role, as its alias makes it. */
		String entityId() {
			return (this.appRole != null) ? java.util.UUID
				.nameUUIDFromBytes(this.appRole.roleId.getBytes(java.nio.charset.StandardCharsets.UTF_8))
				.toString() : "";
		}

		@Nullable AppRole appRole() {
			return this.appRole;
		}

		boolean isAlive(Instant now) {
			return !this.revoked && (this.expireAt == null || now.isBefore(this.expireAt));
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
			data.put("display_name", this.displayName);
			data.put("entity_id", entityId());
			data.put("expire_time", (this.expireAt != null) ? this.expireAt.toString() : null);
			data.put("explicit_max_ttl", (this.explicitMaxTtl != null) ? this.explicitMaxTtl.toSeconds() : 0);
			data.put("id", this.id);
			data.put("issue_time", this.issued.toString());
			if (this.lastRenewal != null) {
				data.put("last_renewal", this.lastRenewal.toString());
				data.put("last_renewal_time", this.lastRenewal.getEpochSecond());
			}
			data.put("meta", this.meta);
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
