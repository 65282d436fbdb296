package dev.leasekeeper.vault;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSourceException;

import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Malformed or surprising answers — from Vault or from a proxy in front of it — are
 * classified, never thrown raw, and never echoed: the body may hold secrets.
 */
class HostileVaultAnswerTests {

	private static final String SECRET = "s3cr3t-in-the-body";

	private final AtomicReference<Answer> answer = new AtomicReference<>();

	private HttpServer server;

	private SecretLeaseSource source;

	@BeforeEach
	void start() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.server.createContext("/", (exchange) -> {
			Answer current = this.answer.get();
			exchange.getRequestBody().readAllBytes();
			byte[] body = current.body.getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", current.contentType);
			exchange.sendResponseHeaders(current.status, (body.length == 0) ? -1 : body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
		this.server.start();
		VaultTemplate vault = new VaultTemplate(
				VaultEndpoint.from(java.net.URI.create("http://127.0.0.1:" + this.server.getAddress().getPort())),
				new TokenAuthentication("hvs.test"));
		this.source = new SecretLeaseSource(vault, "database/creds/orders", Clock.systemUTC());
	}

	@AfterEach
	void stop() {
		this.server.stop(0);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', value = {
			"bad JSON|200|application/json|{\"lease_id\": \"database/creds/orders/1\", \"lease_duration\": |TRANSIENT",
			"missing lease_duration|200|application/json|{\"lease_id\":\"database/creds/orders/1\",\"renewable\":true,\"data\":{\"password\":\""
					+ SECRET + "\"}}|TRANSIENT",
			"zero TTL|200|application/json|{\"lease_id\":\"database/creds/orders/1\",\"lease_duration\":0,\"renewable\":true}|TRANSIENT",
			"negative TTL|200|application/json|{\"lease_id\":\"database/creds/orders/1\",\"lease_duration\":-5,\"renewable\":true}|TRANSIENT",
			"absurd TTL|200|application/json|{\"lease_id\":\"database/creds/orders/1\",\"lease_duration\":999999999999,\"renewable\":true}|TRANSIENT",
			"an HTML page from a proxy|502|text/html|<html><body>Bad gateway " + SECRET + "</body></html>|TRANSIENT",
			"an HTML page with 200|200|text/html|<html><body>login " + SECRET + "</body></html>|TRANSIENT",
			"an empty 200|200|application/json||TRANSIENT",
			"no lease id|200|application/json|{\"lease_duration\":60,\"data\":{\"password\":\"" + SECRET
					+ "\"}}|PERMANENT",
			"a 400 with another body|400|text/plain|nope " + SECRET + "|PERMANENT",
			"lease not found|400|application/json|{\"errors\":[\"lease not found\"]}|PERMANENT",
			"permission denied|403|application/json|{\"errors\":[\"1 error occurred:\\n\\t* permission denied\\n\\n\"]}|UNAUTHORIZED",
			"rate limited|429|application/json|{\"errors\":[\"rate limit quota exceeded\"]}|TRANSIENT",
			"sealed|503|application/json|{\"errors\":[\"Vault is sealed\"]}|TRANSIENT" })
	void aSurprisingAnswerIsClassifiedAndNeverEchoed(String name, int status, String contentType, String body,
			LeaseSourceException.Kind kind) {
		this.answer.set(new Answer(status, contentType, (body != null) ? body : ""));
		assertThatExceptionOfType(LeaseSourceException.class).isThrownBy(this.source::acquire).satisfies((ex) -> {
			assertThat(ex.getKind()).isEqualTo(kind);
			assertThat(ex.getMessage()).contains("database/creds/orders").doesNotContain(SECRET);
			assertThat(ex.getErrorClass()).doesNotContain(SECRET);
		});
		Grant current = new Grant("database/creds/orders/1", Duration.ofMinutes(10), true, Map.of("password", "kept"),
				java.util.List.of(), Instant.now());
		if (!"no lease id".equals(name)) {
			assertThatExceptionOfType(LeaseSourceException.class).isThrownBy(() -> this.source.renew(current, null))
				.satisfies((ex) -> assertThat(ex.getMessage()).doesNotContain(SECRET));
		}
	}

	@Test
	void aTokenLookedUpWithATtlOfZeroExpiresUnlessItHasNoExpireTime() throws LeaseSourceException {
		// a token given in configuration: its "log-in" is lookup-self
		this.answer.set(new Answer(200, "application/json",
				"{\"data\":{\"ttl\":0,\"renewable\":true,\"expire_time\":\"2026-01-05T10:00:00Z\"}}"));
		assertThat(configuredToken().acquire().ttl()).as("in its last second").isEqualTo(Duration.ofSeconds(1));
		this.answer.set(
				new Answer(200, "application/json", "{\"data\":{\"ttl\":0,\"renewable\":false,\"expire_time\":null}}"));
		assertThat(configuredToken().acquire().ttl()).as("a root token").isZero();
	}

	private TokenLeaseSource configuredToken() {
		return new TokenLeaseSource(new TokenAuthentication("hvs.configured"),
				org.springframework.vault.client.VaultClients.createRestTemplate(
						VaultEndpoint
							.from(java.net.URI.create("http://127.0.0.1:" + this.server.getAddress().getPort())),
						new org.springframework.http.client.SimpleClientHttpRequestFactory()),
				Clock.systemUTC());
	}

	private record Answer(int status, String contentType, String body) {
	}

}
