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

	private static final ObjectMapper json = JsonMapper.builder().build();

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
		Instant arrived = this.model.now();
		String method = exchange.getRequestMethod();
		String rawPath = exchange.getRequestURI().getPath();
		String path = rawPath.startsWith("/v1/") ? rawPath.substring(4) : rawPath;
		String tokenId = token(exchange);
		String leaseId = null;
		int status;
		try {
			this.faults.delay(path);
			Map<String, Object> body = readBody(exchange);
			Object requestedLease = body.get("lease_id");
			leaseId = (requestedLease instanceof String text) ? text : null;
			Answer answer = answer(method, path, rawPath, tokenId, body);
			status = answer.status;
			send(exchange, answer.status, answer.body);
		}
		catch (VaultError ex) {
			status = ex.status();
			send(exchange, status, Map.of("errors",
					(status == 404 && ex.getMessage().isEmpty()) ? List.of() : List.of(ex.getMessage())));
		}
		catch (RuntimeException ex) {
			status = 500;
			send(exchange, status, Map.of("errors", List.of("internal error")));
		}
		this.journal.add(new JournalEntry(arrived, method, path, this.model.accessorOf(tokenId), leaseId, status));
	}

	private Answer answer(String method, String path, String rawPath, @Nullable String tokenId,
			Map<String, Object> body) {
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
			return ok(authResponse(token, List.of()));
		}
		VaultModel.Token caller = this.model.authenticate(tokenId);
		switch (path) {
			case "auth/token/create", "auth/token/create-orphan" -> {
				requireMethod(method, "POST", "PUT");
				VaultModel.Token token = this.model.createToken(caller, VaultDurations.parse("ttl", body.get("ttl")),
						VaultDurations.parse("explicit_max_ttl", body.get("explicit_max_ttl")),
						VaultDurations.parse("period", body.get("period")), bool(body, "renewable", true),
						policies(body));
				return ok(authResponse(token, List.of()));
			}
			case "auth/token/lookup-self" -> {
				requireMethod(method, "GET");
				return ok(response(null, false, 0, caller.lookup(this.model.now()), List.of(), null));
			}
			case "auth/token/renew-self" -> {
				requireMethod(method, "POST", "PUT");
				VaultModel.Granted granted = this.model.renewSelf(caller,
						VaultDurations.parse("increment", body.get("increment")));
				return ok(authResponse(caller, granted.warnings()));
			}
			case "auth/token/revoke-self" -> {
				requireMethod(method, "POST", "PUT");
				this.model.revokeToken(caller);
				return noContent();
			}
			case "sys/leases/renew", "sys/renew" -> {
				requireMethod(method, "POST", "PUT");
				String leaseId = string(body, "lease_id");
				VaultModel.Granted granted = this.model.renewLease(leaseId,
						VaultDurations.parse("increment", body.get("increment")));
				return ok(response(leaseId, true, granted.ttl().toSeconds(), null, granted.warnings(), null));
			}
			case "sys/leases/revoke", "sys/revoke" -> {
				requireMethod(method, "POST", "PUT");
				this.model.revokeLease(string(body, "lease_id"));
				return bool(body, "sync", true) ? noContent() : new Answer(202, null);
			}
			case "sys/leases/lookup" -> {
				requireMethod(method, "POST", "PUT");
				VaultModel.SecretLease lease = this.model.lookupLease(string(body, "lease_id"));
				Map<String, Object> data = new LinkedHashMap<>();
				data.put("id", lease.id);
				data.put("issue_time", lease.issued.toString());
				data.put("expire_time", lease.expireAt.toString());
				data.put("last_renewal", (lease.lastRenewal != null) ? lease.lastRenewal.toString() : null);
				data.put("renewable", true);
				data.put("ttl", Math.max(0, Duration.between(this.model.now(), lease.expireAt).toSeconds()));
				return ok(response(null, false, 0, data, List.of(), null));
			}
			default -> {
				if (path.startsWith("database/creds/") && path.length() > "database/creds/".length()) {
					requireMethod(method, "GET");
					VaultModel.SecretLease lease = this.model.createCredentials(caller,
							path.substring("database/creds/".length()));
					Map<String, Object> data = new LinkedHashMap<>();
					data.put("username", lease.username);
					data.put("password", lease.password);
					long ttl = lease.granted.toSeconds();
					return ok(response(lease.id, true, ttl, data, List.of(), null));
				}
				throw new VaultError(404, "");
			}
		}
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

	private Map<String, Object> authResponse(VaultModel.Token token, List<String> warnings) {
		Map<String, Object> auth = new LinkedHashMap<>();
		auth.put("client_token", token.id);
		auth.put("accessor", token.accessor);
		auth.put("policies", token.policies);
		auth.put("token_policies", token.policies);
		auth.put("metadata", null);
		auth.put("lease_duration", token.granted.toSeconds());
		auth.put("renewable", token.renewable && token.expireAt != null);
		auth.put("entity_id", "");
		auth.put("token_type", "service");
		auth.put("orphan", token.parent == null);
		auth.put("num_uses", 0);
		return response("", false, 0, null, warnings, auth);
	}

	private static Map<String, Object> response(@Nullable String leaseId, boolean renewable, long leaseDuration,
			@Nullable Map<String, Object> data, List<String> warnings, @Nullable Map<String, Object> auth) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("request_id", UUID.randomUUID().toString());
		body.put("lease_id", (leaseId != null) ? leaseId : "");
		body.put("renewable", renewable);
		body.put("lease_duration", leaseDuration);
		body.put("data", data);
		body.put("wrap_info", null);
		body.put("warnings", warnings.isEmpty() ? null : warnings);
		body.put("auth", auth);
		body.put("mount_type", "");
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
		try {
			Object parsed = json.readValue(text, Object.class);
			if (parsed instanceof Map<?, ?> map) {
				return (Map<String, Object>) map;
			}
			throw VaultError.badRequest("failed to parse JSON input: the body must be a JSON object");
		}
		catch (JacksonException ex) {
			throw VaultError.badRequest("failed to parse JSON input: " + ex.getOriginalMessage());
		}
	}

	private static @Nullable String string(Map<String, Object> body, String field) {
		Object value = body.get(field);
		if (value == null || value instanceof String) {
			return (String) value;
		}
		throw VaultError.badRequest("error converting input " + field + ": expected a string");
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

	private static List<String> policies(Map<String, Object> body) {
		Object value = body.get("policies");
		List<String> policies = new ArrayList<>();
		if (value instanceof List<?> list) {
			list.forEach((item) -> policies.add(String.valueOf(item)));
		}
		else if (value instanceof String text && !text.isBlank()) {
			policies.addAll(List.of(text.split(",")));
		}
		else if (value != null) {
			throw VaultError.badRequest("error converting input policies: expected a list of strings");
		}
		if (!policies.contains("default")) {
			policies.add(0, "default");
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
