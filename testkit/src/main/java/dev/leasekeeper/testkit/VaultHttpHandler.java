package dev.leasekeeper.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Vault's HTTP API over the {@link VaultModel}: routes, JSON shapes, statuses and error
 * bodies.
 */
final class VaultHttpHandler implements HttpHandler {

	private static final ObjectMapper json = JsonMapper.builder()
		.disable(tools.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.build();

	/** The mounts, with the {@code mount_type} Vault names each. */
	private static final Map<String, String> MOUNTS = Map.ofEntries(Map.entry("sys/", "system"),
			Map.entry("auth/token/", "token"), Map.entry("auth/approle/", "approle"),
			Map.entry("auth/kubernetes/", "kubernetes"), Map.entry("auth/userpass/", "userpass"),
			Map.entry("auth/jwt/", "jwt"), Map.entry("auth/github/", "github"), Map.entry("auth/cert/", "cert"),
			Map.entry("database/", "database"), Map.entry("cubbyhole/", "cubbyhole"),
			Map.entry("identity/", "identity"), Map.entry("pki/", "pki"), Map.entry(KvEngine.MOUNT, "kv"));

	private final VaultModel model;

	private final Faults faults;

	private final List<JournalEntry> journal;

	VaultHttpHandler(VaultModel model, Faults faults, List<JournalEntry> journal) {
		this.model = model;
		this.faults = faults;
		this.journal = journal;
	}

	@Override
	public void handle(HttpExchange exchange) throws IOException {
		if (this.faults.hold(exchange)) {
			// the connection hangs: answered by nobody, it never reaches Vault
			return;
		}
		Instant arrived = this.model.now();
		String method = exchange.getRequestMethod();
		String rawPath = exchange.getRequestURI().getPath();
		String query = exchange.getRequestURI().getQuery();
		if ("GET".equals(method) && query != null && List.of(query.split("&")).contains("list=true")) {
			method = "LIST";
		}
		String path = rawPath.startsWith("/v1/") ? rawPath.substring(4) : rawPath;
		String tokenId = token(exchange);
		String leaseId = null;
		int status;
		@Nullable Object body;
		try {
			this.faults.delay(path);
			Map<String, Object> request = readBody(exchange);
			leaseId = leaseIdOf(path, request);
			Answer answer = answer(method, path, rawPath, query, tokenId, request, clientCertificate(exchange));
			status = answer.status;
			body = answer.body;
		}
		catch (VaultError ex) {
			status = ex.status();
			body = Map.of("errors", ex.getMessage().isEmpty() ? List.of() : List.of(ex.getMessage()));
		}
		catch (RuntimeException ex) {
			status = 500;
			body = Map.of("errors", List.of("internal error"));
		}
		// journaled before it is answered: a client that has its answer finds the request
		this.journal.add(new JournalEntry(arrived, method, path, this.model.accessorOf(tokenId), leaseId, status));
		send(exchange, status, body);
	}

	private static @Nullable String leaseIdOf(String path, Map<String, Object> body) {
		Object requested = body.get("lease_id");
		if (requested instanceof String text) {
			return text;
		}
		if (requested instanceof Number number) {
			return weakString(number);
		}
		for (String prefix : List.of("sys/leases/renew/", "sys/leases/revoke/")) {
			if (path.startsWith(prefix) && path.length() > prefix.length()) {
				return path.substring(prefix.length());
			}
		}
		return null;
	}

	/** The TLS client certificate of an HTTPS request, if the client sent one. */
	private static java.security.cert.@Nullable X509Certificate clientCertificate(HttpExchange exchange) {
		if (exchange instanceof com.sun.net.httpserver.HttpsExchange https) {
			try {
				java.security.cert.Certificate[] chain = https.getSSLSession().getPeerCertificates();
				return (chain.length > 0 && chain[0] instanceof java.security.cert.X509Certificate leaf) ? leaf : null;
			}
			catch (javax.net.ssl.SSLPeerUnverifiedException ex) {
				return null;
			}
		}
		return null;
	}

	private Answer answer(String method, String path, String rawPath, @Nullable String query, @Nullable String tokenId,
			Map<String, Object> body, java.security.cert.@Nullable X509Certificate clientCertificate) {
		if (!rawPath.startsWith("/v1/")) {
			throw new VaultError(404, "");
		}
		if (path.equals("sys/health")) {
			requireMethod(method, "GET", "HEAD");
			return health();
		}
		if (this.faults.isSealed()) {
			throw new VaultError(503, "Vault is sealed");
		}
		if (this.faults.isRateLimited(path)) {
			throw new VaultError(429, "request path \"" + path + "\": rate limit quota exceeded");
		}
		if (path.equals("auth/approle/login")) {
			requireMethod(method, "POST", "PUT");
			VaultModel.Token token = this.model.login(string(body, "role_id"), string(body, "secret_id"));
			return ok(authResponse(token, List.of(), "approle"));
		}
		if (path.startsWith("auth/userpass/login/")) {
			requireMethod(method, "POST", "PUT");
			VaultModel.Token token = this.model.userpassLogin(path.substring("auth/userpass/login/".length()),
					string(body, "password"));
			return ok(authResponse(token, List.of(), "userpass"));
		}
		if (path.equals("auth/cert/login")) {
			requireMethod(method, "POST", "PUT");
			VaultModel.Token token = this.model.certLogin(string(body, "name"), clientCertificate);
			return ok(authResponse(token, List.of(), "cert"));
		}
		if (path.equals("sys/wrapping/unwrap")) {
			requireMethod(method, "POST", "PUT");
			// the wrapping token in the header, or another token's call with it in the
			// body
			String wrapping = (body.get("token") instanceof String given && !given.isEmpty()) ? given : tokenId;
			VaultModel.Token token = this.model.unwrap(wrapping);
			return ok(authResponse(token, List.of(), "token"));
		}
		if (path.equals("auth/github/login")) {
			requireMethod(method, "POST", "PUT");
			VaultModel.Token token = this.model.gitHubLogin(string(body, "token"));
			return ok(authResponse(token, List.of(), "github"));
		}
		if (path.equals("auth/jwt/login")) {
			requireMethod(method, "POST", "PUT");
			VaultModel.Token token = this.model.jwtLogin(string(body, "role"), string(body, "jwt"));
			return ok(authResponse(token, List.of(), "jwt"));
		}
		if (path.equals("auth/kubernetes/login")) {
			requireMethod(method, "POST", "PUT");
			VaultModel.Token token = this.model.kubernetesLogin(string(body, "role"), string(body, "jwt"));
			return ok(authResponse(token, List.of(), "kubernetes"));
		}
		VaultModel.Token caller = this.model.authenticate(tokenId);
		this.model.authorize(caller, path, capability(method, path));
		String mount = mountOf(path);
		if (mount == null) {
			throw new VaultError(404, "no handler for route \"" + path + "\". route entry not found.");
		}
		Answer answer = switch (mount) {
			case "auth/token/" -> token(method, path, caller, body);
			case "sys/" -> system(method, path, body);
			case "database/" -> database(method, path, caller, body);
			case "pki/" -> pki(method, path, body);
			case KvEngine.MOUNT -> kv(method, path, query, body);
			default -> null;
		};
		if (answer == null) {
			throw unsupportedPath();
		}
		return answer;
	}

	private @Nullable Answer token(String method, String path, VaultModel.Token caller, Map<String, Object> body) {
		switch (path) {
			case "auth/token/create", "auth/token/create-orphan" -> {
				requireMethod(method, "POST", "PUT");
				VaultModel.Created created = this.model.createToken(caller,
						VaultDurations.parse("ttl", body.get("ttl")),
						VaultDurations.parse("explicit_max_ttl", body.get("explicit_max_ttl")),
						VaultDurations.parse("period", body.get("period")), bool(body, "renewable", true),
						policies(body), bool(body, "no_default_policy", false), string(body, "display_name"));
				return ok(authResponse(created.token(), created.warnings(), "token"));
			}
			case "auth/token/lookup-self" -> {
				// the path has an update callback too
				requireMethod(method, "GET", "POST", "PUT");
				return ok(response(null, false, 0, caller.lookup(this.model.now()), List.of(), null, "token"));
			}
			case "auth/token/renew-self" -> {
				requireMethod(method, "POST", "PUT");
				VaultModel.Granted granted = this.model.renewSelf(caller,
						VaultDurations.parse("increment", body.get("increment")));
				return ok(authResponse(caller, granted.warnings(), "token"));
			}
			case "auth/token/revoke-self" -> {
				requireMethod(method, "POST", "PUT");
				this.model.revokeToken(caller);
				return noContent();
			}
			default -> {
				return tokenRoles(method, path, caller, body);
			}
		}
	}

	/**
	 * Token roles: {@code auth/token/roles/<name>} (write, read) and
	 * {@code auth/token/create/<name>}.
	 */
	private @Nullable Answer tokenRoles(String method, String path, VaultModel.Token caller, Map<String, Object> body) {
		if (path.startsWith("auth/token/roles/") && path.length() > "auth/token/roles/".length()) {
			String name = path.substring("auth/token/roles/".length());
			if (method.equals("GET")) {
				VaultModel.TokenRole role = this.model.tokenRole(name);
				if (role == null) {
					throw new VaultError(404, "");
				}
				return ok(response(null, false, 0, role.describe(), List.of(), null, "token"));
			}
			requireMethod(method, "POST", "PUT");
			Object period = (body.get("token_period") != null) ? body.get("token_period") : body.get("period");
			List<String> allowed = listOrComma(body.get("allowed_policies"));
			this.model.tokenRole(name, allowed, bool(body, "orphan", false),
					VaultDurations.parse("token_period", period), bool(body, "renewable", true),
					VaultDurations.parse("token_explicit_max_ttl", body.get("token_explicit_max_ttl")));
			return noContent();
		}
		if (path.startsWith("auth/token/create/") && path.length() > "auth/token/create/".length()) {
			requireMethod(method, "POST", "PUT");
			VaultModel.Created created = this.model.createTokenAgainstRole(caller,
					path.substring("auth/token/create/".length()), policies(body),
					VaultDurations.parse("ttl", body.get("ttl")), string(body, "display_name"));
			return ok(authResponse(created.token(), created.warnings(), "token"));
		}
		return null;
	}

	private static List<String> listOrComma(@Nullable Object value) {
		if (value instanceof List<?> list) {
			return list.stream().map(String::valueOf).toList();
		}
		if (value instanceof String text && !text.isBlank()) {
			return List.of(text.split(","));
		}
		return List.of();
	}

	/**
	 * The KV version 2 engine at {@code secret/}: {@code secret/data/<key>} (read, write
	 * with {@code options.cas}) and {@code secret/metadata/<key>} (read, write, delete).
	 */
	private @Nullable Answer kv(String method, String path, @Nullable String query, Map<String, Object> body) {
		KvEngine kv = this.model.kv();
		String data = KvEngine.MOUNT + "data/";
		String metadata = KvEngine.MOUNT + "metadata/";
		if (path.startsWith(data) && path.length() > data.length()) {
			String key = path.substring(data.length());
			if (method.equals("GET")) {
				return ok(response(null, false, 0, kv.read(key, versionOf(query)), List.of(), null, "kv"));
			}
			requireMethod(method, "POST", "PUT");
			return ok(response(null, false, 0, kv.write(key, body.get("data"), body.get("options")), List.of(), null,
					"kv"));
		}
		if (path.startsWith(metadata) && path.length() > metadata.length()) {
			String key = path.substring(metadata.length());
			switch (method) {
				case "GET" -> {
					return ok(response(null, false, 0, kv.metadata(key), List.of(), null, "kv"));
				}
				case "DELETE" -> {
					kv.deleteMetadata(key);
					return noContent();
				}
				default -> {
					requireMethod(method, "POST", "PUT");
					kv.writeMetadata(key, body);
					return noContent();
				}
			}
		}
		return null;
	}

	private static @Nullable Integer versionOf(@Nullable String query) {
		if (query == null) {
			return null;
		}
		for (String parameter : query.split("&")) {
			if (parameter.startsWith("version=")) {
				try {
					return Integer.parseInt(parameter.substring("version=".length()));
				}
				catch (NumberFormatException ex) {
					throw VaultError.badRequest("invalid version");
				}
			}
		}
		return null;
	}

	private @Nullable Answer system(String method, String path, Map<String, Object> body) {
		if (path.equals("sys/leases/renew") || path.equals("sys/renew") || path.startsWith("sys/leases/renew/")
				|| path.startsWith("sys/renew/")) {
			requireMethod(method, "POST", "PUT");
			String leaseId = leaseIdOf(path, body);
			VaultModel.Granted granted = this.model.renewLease(leaseId,
					VaultDurations.parse("increment", body.get("increment")));
			return ok(response(leaseId, true, granted.ttl().toSeconds(), null, granted.warnings(), null, "system"));
		}
		if (path.equals("sys/leases/revoke") || path.equals("sys/revoke") || path.startsWith("sys/leases/revoke/")
				|| path.startsWith("sys/revoke/")) {
			requireMethod(method, "POST", "PUT");
			boolean sync = bool(body, "sync", true);
			this.model.revokeLease(leaseIdOf(path, body));
			return sync ? noContent() : new Answer(202, null);
		}
		if (path.equals("sys/leases/lookup")) {
			requireMethod(method, "POST", "PUT");
			VaultModel.SecretLease lease = this.model.lookupLease(leaseIdOf(path, body));
			Map<String, Object> data = new LinkedHashMap<>();
			data.put("expire_time", lease.expireAt.toString());
			data.put("id", lease.id);
			data.put("issue_time", lease.issued.toString());
			data.put("last_renewal", (lease.lastRenewal != null) ? lease.lastRenewal.toString() : null);
			data.put("renewable", this.model.isRenewable(lease));
			data.put("ttl", Math.max(0, Duration.between(this.model.now(), lease.expireAt).toSeconds()));
			return ok(response(null, false, 0, data, List.of(), null, "system"));
		}
		if (path.startsWith("sys/leases/lookup/")) {
			requireMethod(method, "LIST");
			List<String> keys = this.model.listLeases(path.substring("sys/leases/lookup/".length()));
			if (keys.isEmpty()) {
				throw new VaultError(404, "");
			}
			return ok(response(null, false, 0, Map.of("keys", keys), List.of(), null, "system"));
		}
		if (path.equals("sys/policies/acl") || path.equals("sys/policies/acl/")) {
			requireMethod(method, "LIST");
			return ok(response(null, false, 0, Map.of("keys", this.model.policyNames()), List.of(), null, "system"));
		}
		if (path.startsWith("sys/policies/acl/")) {
			return policy(method, path.substring("sys/policies/acl/".length()), body);
		}
		return null;
	}

	private Answer policy(String method, String name, Map<String, Object> body) {
		switch (method) {
			case "GET" -> {
				Policy policy = this.model.policy(name);
				if (policy == null) {
					throw new VaultError(404, "");
				}
				Map<String, Object> data = new LinkedHashMap<>();
				data.put("name", policy.name());
				data.put("policy", policy.text());
				return ok(response(null, false, 0, data, List.of(), null, "system"));
			}
			case "POST", "PUT" -> {
				String text = string(body, "policy");
				if (text == null || text.isBlank()) {
					throw VaultError.badRequest("'policy' parameter not supplied or empty");
				}
				this.model.writePolicy(name, text);
				return noContent();
			}
			case "DELETE" -> {
				this.model.deletePolicy(name);
				return noContent();
			}
			default -> throw new VaultError(405, "1 error occurred:\n\t* unsupported operation\n\n");
		}
	}

	private @Nullable Answer database(String method, String path, VaultModel.Token caller, Map<String, Object> body) {
		if (path.startsWith("database/static-creds/") && path.length() > "database/static-creds/".length()) {
			requireMethod(method, "GET");
			// not a lease: no lease id, no lease duration; ttl is the time to the
			// rotation
			return ok(response(null, false, 0,
					this.model.staticCredentials(path.substring("database/static-creds/".length())), List.of(), null,
					"database"));
		}
		if (path.startsWith("database/rotate-role/") && path.length() > "database/rotate-role/".length()) {
			requireMethod(method, "POST", "PUT");
			this.model.rotateRole(path.substring("database/rotate-role/".length()));
			return noContent();
		}
		String role = path.startsWith("database/creds/") ? path.substring("database/creds/".length()) : "";
		if (role.isEmpty() || role.contains("/")) {
			return null;
		}
		requireMethod(method, "GET");
		VaultModel.SecretLease lease = this.model.createCredentials(caller, role);
		Map<String, Object> data = new LinkedHashMap<>();
		data.put("password", lease.password);
		data.put("username", lease.username);
		return ok(response(lease.id, true, lease.granted.toSeconds(), data, List.of(), null, "database"));
	}

	private @Nullable Answer pki(String method, String path, Map<String, Object> body) {
		PkiEngine.Issued answer;
		if (path.startsWith("pki/issue/") && path.length() > "pki/issue/".length()) {
			requireMethod(method, "POST", "PUT");
			answer = this.model.pki().issue(path.substring("pki/issue/".length()), body);
		}
		else if (path.equals("pki/revoke")) {
			requireMethod(method, "POST", "PUT");
			answer = this.model.pki().revoke(body);
		}
		else {
			return null;
		}
		return ok(response(null, false, 0, answer.data(), answer.warnings(), null, "pki"));
	}

	/**
	 * The capability a request needs: {@code read} for GET, {@code list} for LIST,
	 * {@code delete} for DELETE, and for a write {@code update} — {@code create} when it
	 * makes a policy that does not exist yet (the only path here with an existence
	 * check).
	 */
	private String capability(String method, String path) {
		return switch (method) {
			case "GET", "HEAD" -> "read";
			case "LIST" -> "list";
			case "DELETE" -> "delete";
			default -> (path.startsWith("sys/policies/acl/")
					&& this.model.policy(path.substring("sys/policies/acl/".length())) == null)
					|| (path.startsWith(KvEngine.MOUNT + "data/")
							&& this.model.kv().currentVersion(path.substring((KvEngine.MOUNT + "data/").length())) == 0)
									? "create" : "update";
		};
	}

	/** The mounts the simulator serves, by path prefix; {@code null} when unmounted. */
	private static @Nullable String mountOf(String path) {
		for (String mount : MOUNTS.keySet()) {
			if (path.startsWith(mount) || (path + "/").equals(mount)) {
				return mount;
			}
		}
		return null;
	}

	private static VaultError unsupportedPath() {
		return new VaultError(404, "1 error occurred:\n\t* unsupported path\n\n");
	}

	private Answer health() {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("initialized", true);
		body.put("sealed", this.faults.isSealed());
		body.put("standby", false);
		body.put("performance_standby", false);
		body.put("server_time_utc", this.model.now().getEpochSecond());
		body.put("version", "1.17.0+leasekeeper-simulator");
		body.put("cluster_name", "leasekeeper-simulator");
		return new Answer(this.faults.isSealed() ? 503 : 200, body);
	}

	private Map<String, Object> authResponse(VaultModel.Token token, List<String> warnings, String mountType) {
		Map<String, Object> auth = new LinkedHashMap<>();
		auth.put("client_token", token.id);
		auth.put("accessor", token.accessor);
		auth.put("policies", token.policies);
		auth.put("token_policies", token.policies);
		auth.put("metadata", token.meta);
		auth.put("lease_duration", token.granted.toSeconds());
		auth.put("renewable", token.renewable && token.expireAt != null);
		auth.put("entity_id", token.entityId());
		auth.put("token_type", "service");
		auth.put("orphan", token.parent == null);
		auth.put("mfa_requirement", null);
		auth.put("num_uses", 0);
		return response("", false, 0, null, warnings, auth, mountType);
	}

	private static Map<String, Object> response(@Nullable String leaseId, boolean renewable, long leaseDuration,
			@Nullable Map<String, Object> data, List<String> warnings, @Nullable Map<String, Object> auth,
			String mountType) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("request_id", UUID.randomUUID().toString());
		body.put("lease_id", (leaseId != null) ? leaseId : "");
		body.put("renewable", renewable);
		body.put("lease_duration", leaseDuration);
		body.put("data", data);
		body.put("wrap_info", null);
		body.put("warnings", warnings.isEmpty() ? null : warnings);
		body.put("auth", auth);
		body.put("mount_type", mountType);
		return body;
	}

	private static Answer ok(Map<String, Object> body) {
		return new Answer(200, body);
	}

	private static Answer noContent() {
		return new Answer(204, null);
	}

	private static void requireMethod(String method, String... allowed) {
		for (String candidate : allowed) {
			if (candidate.equals(method)) {
				return;
			}
		}
		throw new VaultError(405, "1 error occurred:\n\t* unsupported operation\n\n");
	}

	private static @Nullable String token(HttpExchange exchange) {
		String token = exchange.getRequestHeaders().getFirst("X-Vault-Token");
		if (token == null) {
			String authorization = exchange.getRequestHeaders().getFirst("Authorization");
			if (authorization != null && authorization.startsWith("Bearer ")) {
				token = authorization.substring("Bearer ".length());
			}
		}
		return (token != null && !token.isEmpty()) ? token : null;
	}

	/**
	 * Vault's {@code parseJSONRequest}: the first JSON value of the body, which must be
	 * an object; bytes after it are ignored.
	 */
	@SuppressWarnings("unchecked")
	private static Map<String, Object> readBody(HttpExchange exchange) throws IOException {
		byte[] bytes;
		try (InputStream in = exchange.getRequestBody()) {
			bytes = in.readAllBytes();
		}
		String text = new String(bytes, StandardCharsets.UTF_8).trim();
		if (text.isEmpty()) {
			return Map.of();
		}
		Object parsed;
		try {
			parsed = json.readValue(text, Object.class);
		}
		catch (JacksonException ex) {
			String message = ex.getOriginalMessage();
			throw VaultError
				.badRequest("failed to parse JSON input: " + ((message != null && message.contains("end-of-input"))
						? "unexpected EOF" : "invalid character in JSON input"));
		}
		if (parsed instanceof Map<?, ?> map) {
			return (Map<String, Object>) map;
		}
		String kind = (parsed instanceof List<?>) ? "array" : (parsed instanceof String) ? "string"
				: (parsed instanceof Boolean) ? "bool" : (parsed == null) ? "null" : "number";
		if (parsed == null) {
			return Map.of();
		}
		throw VaultError.badRequest("failed to parse JSON input: json: cannot unmarshal " + kind
				+ " into Go value of type map[string]interface {}");
	}

	/**
	 * A string field, decoded weakly as Vault's {@code mapstructure} does: a number reads
	 * as its digits, a boolean as {@code 1} or {@code 0}.
	 */
	private static @Nullable String string(Map<String, Object> body, String field) {
		Object value = body.get(field);
		if (value == null || value instanceof String) {
			return (String) value;
		}
		if (value instanceof Number number) {
			return weakString(number);
		}
		if (value instanceof Boolean flag) {
			return flag ? "1" : "0";
		}
		throw VaultError.badRequest("error converting input " + field + ": expected a string");
	}

	private static String weakString(Number number) {
		return (number.doubleValue() == Math.rint(number.doubleValue())) ? Long.toString(number.longValue())
				: number.toString();
	}

	private static boolean bool(Map<String, Object> body, String field, boolean fallback) {
		Object value = body.get(field);
		if (value == null) {
			return fallback;
		}
		if (value instanceof Boolean flag) {
			return flag;
		}
		if (value instanceof String text && (text.equals("true") || text.equals("false"))) {
			return Boolean.parseBoolean(text);
		}
		throw VaultError.badRequest("error converting input " + field + ": expected a boolean");
	}

	private static @Nullable List<String> policies(Map<String, Object> body) {
		Object value = body.get("policies");
		if (value == null) {
			return null;
		}
		List<String> policies = new ArrayList<>();
		if (value instanceof List<?> list) {
			list.forEach((item) -> policies.add(String.valueOf(item)));
		}
		else if (value instanceof String text && !text.isBlank()) {
			policies.addAll(List.of(text.split(",")));
		}
		else if (!(value instanceof String)) {
			throw VaultError.badRequest("error converting input policies: expected a list of strings");
		}
		return policies;
	}

	private static void send(HttpExchange exchange, int status, @Nullable Object body) throws IOException {
		if (body == null || status == 204) {
			exchange.sendResponseHeaders((status == 200) ? 204 : status, -1);
			exchange.close();
			return;
		}
		byte[] bytes = json.writeValueAsBytes(body);
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	private record Answer(int status, @Nullable Object body) {
	}

}
