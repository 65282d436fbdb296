package dev.leasekeeper.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Vault a conformance test talks to over HTTP: the simulator, or a real Vault (or
 * OpenBao) when {@code LEASEKEEPER_VAULT_ADDR} and {@code LEASEKEEPER_VAULT_TOKEN} are
 * set. On a real Vault the database role {@code leasekeeper-conformance} (default_ttl 4s,
 * max_ttl 8s) must exist: see {@code testkit/README.md}.
 */
final class VaultTarget implements AutoCloseable, AfterAllCallback {

	static final String ROLE = "leasekeeper-conformance";

	static final Duration ROLE_TTL = Duration.ofSeconds(4);

	static final Duration ROLE_MAX_TTL = Duration.ofSeconds(8);

	private static final ObjectMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final URI address;

	private final String rootToken;

	private final @Nullable VaultSimulator simulator;

	private final @Nullable SimulatorClock clock;

	private @Nullable VaultTarget reference;

	/** Values the primary issued (tokens, accessors, lease ids) and the reference's. */
	private final Map<String, String> translations = new java.util.concurrent.ConcurrentHashMap<>();

	private final List<Differential.Difference> differences = new java.util.concurrent.CopyOnWriteArrayList<>();

	private VaultTarget(URI address, String rootToken, @Nullable VaultSimulator simulator,
			@Nullable SimulatorClock clock) {
		this.address = address;
		this.rootToken = rootToken;
		this.simulator = simulator;
		this.clock = clock;
	}

	/**
	 * The target of the conformance tests: a real Vault when
	 * {@code LEASEKEEPER_VAULT_ADDR} and {@code LEASEKEEPER_VAULT_TOKEN} are set, else
	 * the simulator. With {@code LEASEKEEPER_VAULT_REFERENCE=simulator} (or the system
	 * property {@code leasekeeper.vault.reference}) every request is sent to a simulator
	 * too, and where the two answers differ is written to
	 * {@code target/vault-differences/}: the differential mode that finds the next
	 * divergence by a run.
	 */
	static VaultTarget start() {
		VaultTarget target = startOne();
		String reference = System.getProperty("leasekeeper.vault.reference",
				System.getenv("LEASEKEEPER_VAULT_REFERENCE"));
		if ("simulator".equals(reference)) {
			target.compareWith(simulated());
		}
		return target;
	}

	private static VaultTarget startOne() {
		String address = System.getenv("LEASEKEEPER_VAULT_ADDR");
		String token = System.getenv("LEASEKEEPER_VAULT_TOKEN");
		if (address != null && token != null) {
			return new VaultTarget(URI.create(address), token, null, null);
		}
		return simulated();
	}

	/** A simulator configured as the conformance tests expect of a real Vault. */
	static VaultTarget simulated() {
		return simulated(ROLE_TTL);
	}

	static VaultTarget simulated(Duration roleTtl) {
		SimulatorClock clock = new SimulatorClock();
		VaultSimulator simulator = VaultSimulator.builder()
			.clock(clock)
			.rootToken("root-" + System.nanoTime())
			.databaseRole(ROLE, roleTtl, ROLE_MAX_TTL)
			.appRole("worker", "role-id-1", "secret-id-1", Duration.ofSeconds(60), Duration.ofSeconds(120),
					List.of("worker"))
			.build()
			.start();
		return new VaultTarget(simulator.uri(), simulator.rootToken(), simulator, clock);
	}

	/**
	 * Send every request to {@code reference} as well and record where its answers
	 * differ.
	 * @param reference the second Vault
	 * @return this target
	 */
	VaultTarget compareWith(VaultTarget reference) {
		this.reference = reference;
		this.translations.put(this.rootToken, reference.rootToken);
		return this;
	}

	List<Differential.Difference> differences() {
		return List.copyOf(this.differences);
	}

	static VaultTarget of(VaultSimulator simulator) {
		return new VaultTarget(simulator.uri(), simulator.rootToken(), simulator, null);
	}

	boolean isSimulator() {
		return this.simulator != null;
	}

	/**
	 * Skip a test that needs the simulator's faults: a real Vault cannot be made to fail
	 * on demand.
	 */
	VaultSimulator simulator() {
		assumeTrue(this.simulator != null, "needs the simulator's fault injection; cannot run against a real Vault");
		return this.simulator;
	}

	String rootToken() {
		return this.rootToken;
	}

	/** Let time pass: the simulator's clock jumps; a real Vault is waited for. */
	void pass(Duration duration) throws InterruptedException {
		if (this.clock != null && this.simulator != null) {
			this.clock.jump(duration);
			// what Vault's background jobs would have done meanwhile
			this.simulator.expireNow();
			if (this.reference != null) {
				this.reference.pass(duration);
			}
		}
		else {
			// a simulated reference follows real time
			Thread.sleep(duration.toMillis());
			if (this.reference != null && this.reference.simulator != null) {
				this.reference.simulator.expireNow();
			}
		}
	}

	Response get(String path, @Nullable String token) throws IOException, InterruptedException {
		return send("GET", path, token, null);
	}

	Response put(String path, @Nullable String token, @Nullable Object body) throws IOException, InterruptedException {
		return send("PUT", path, token, body);
	}

	Response post(String path, @Nullable String token, @Nullable Object body) throws IOException, InterruptedException {
		return send("POST", path, token, body);
	}

	Response list(String path, @Nullable String token) throws IOException, InterruptedException {
		return send("LIST", path, token, null);
	}

	Response delete(String path, @Nullable String token) throws IOException, InterruptedException {
		return send("DELETE", path, token, null);
	}

	/** A child token of the root token holding the given policies (and default). */
	String tokenWith(String... policies) throws IOException, InterruptedException {
		return (String) createToken(Map.of("ttl", "1h", "policies", List.of(policies))).auth().get("client_token");
	}

	/** Write an ACL policy with the root token. */
	void writePolicy(String name, String policy) throws IOException, InterruptedException {
		Response written = put("sys/policies/acl/" + name, this.rootToken, Map.of("policy", policy));
		if (written.status() != 204) {
			throw new IllegalStateException("policy " + name + ": " + written.status() + " " + written.body());
		}
	}

	Response send(String method, String path, @Nullable String token, @Nullable Object body)
			throws IOException, InterruptedException {
		String text = (body == null) ? "" : (body instanceof String raw) ? raw : json.writeValueAsString(body);
		Response response = sendText(method, path, token, text);
		VaultTarget reference = this.reference;
		if (reference != null) {
			Response answered = reference.sendText(method, translate(path), (token != null) ? translate(token) : null,
					translate(text));
			learn(response, answered);
			this.differences.addAll(Differential.compare(method + " " + path, response, answered));
		}
		return response;
	}

	private String translate(String text) {
		String translated = text;
		for (Map.Entry<String, String> entry : this.translations.entrySet()) {
			translated = translated.replace(entry.getKey(), entry.getValue());
		}
		return translated;
	}

	/** Pair what each side issued, so that later requests name the reference's own. */
	private void learn(Response primary, Response reference) {
		if (primary.status() != 200 || reference.status() != 200) {
			return;
		}
		Map<String, Object> ours = primary.json();
		Map<String, Object> theirs = reference.json();
		pair(ours.get("lease_id"), theirs.get("lease_id"));
		if (ours.get("auth") instanceof Map<?, ?> auth && theirs.get("auth") instanceof Map<?, ?> other) {
			pair(auth.get("client_token"), other.get("client_token"));
			pair(auth.get("accessor"), other.get("accessor"));
		}
	}

	private void pair(@Nullable Object primary, @Nullable Object reference) {
		if (primary instanceof String ours && reference instanceof String theirs && !ours.isEmpty()
				&& !ours.equals(theirs)) {
			this.translations.put(ours, theirs);
		}
	}

	private Response sendText(String method, String path, @Nullable String token, String text)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(this.address.resolve("/v1/" + path))
			.timeout(Duration.ofSeconds(10))
			.method(method,
					text.isEmpty() ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text));
		if (token != null) {
			request.header("X-Vault-Token", token);
		}
		HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		return new Response(response.statusCode(), response.body());
	}

	/** A child token of the root token with the given settings. */
	Response createToken(Map<String, Object> settings) throws IOException, InterruptedException {
		return post("auth/token/create", this.rootToken, settings);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.reference != null) {
			report(context.getRequiredTestClass().getSimpleName());
		}
		close();
	}

	/** Write the differences to {@code target/vault-differences/<name>.txt}. */
	java.nio.file.Path report(String name) {
		try {
			java.nio.file.Path directory = java.nio.file.Path.of("target", "vault-differences");
			java.nio.file.Files.createDirectories(directory);
			java.nio.file.Path file = directory.resolve(name + ".txt");
			List<String> lines = this.differences.stream().map(Object::toString).toList();
			java.nio.file.Files.write(file, lines);
			System.out.println(name + ": " + lines.size() + " answers differ from the reference Vault; see " + file);
			return file;
		}
		catch (IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		if (this.simulator != null) {
			this.simulator.close();
		}
		if (this.reference != null) {
			this.reference.close();
		}
	}

	record Response(int status, String body) {

		@SuppressWarnings("unchecked")
		Map<String, Object> json() {
			return body.isEmpty() ? Map.of() : VaultTarget.json.readValue(this.body, Map.class);
		}

		@SuppressWarnings("unchecked")
		Map<String, Object> data() {
			return (Map<String, Object>) json().get("data");
		}

		@SuppressWarnings("unchecked")
		Map<String, Object> auth() {
			return (Map<String, Object>) json().get("auth");
		}

		@SuppressWarnings("unchecked")
		List<String> errors() {
			return (List<String>) json().get("errors");
		}

		@SuppressWarnings("unchecked")
		List<String> warnings() {
			Object warnings = json().get("warnings");
			return (warnings != null) ? (List<String>) warnings : List.of();
		}

		/** A LIST answer's keys; none for a 404. */
		@SuppressWarnings("unchecked")
		List<String> keys() {
			if (this.status == 404) {
				return List.of();
			}
			return (List<String>) data().get("keys");
		}

		long leaseDuration() {
			return ((Number) json().get("lease_duration")).longValue();
		}

		String leaseId() {
			return (String) json().get("lease_id");
		}

	}

}
