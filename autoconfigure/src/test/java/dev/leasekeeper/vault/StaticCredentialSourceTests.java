package dev.leasekeeper.vault;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSourceException;

import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A static role's credential as a grant, from Vault's answers as they are written: read
 * again after {@code ttl} (rounded up) plus a delay within the spread, valid one rotation
 * period beyond, never renewed or revoked; a {@code ttl} of 0 (the rotation is due, not
 * made yet) and an answer without a password are transient.
 */
class StaticCredentialSourceTests {

	private final AtomicReference<String> answer = new AtomicReference<>();

	private HttpServer server;

	private StaticCredentialSource source;

	@BeforeEach
	void start() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/", (exchange) -> {
			byte[] body = this.answer.get().getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.sendResponseHeaders(200, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
		this.server.start();
		VaultTemplate vault = new VaultTemplate(
				VaultEndpoint.from(java.net.URI.create("http://127.0.0.1:" + this.server.getAddress().getPort())),
				new TokenAuthentication("hvs.test"));
		this.source = new StaticCredentialSource(vault, "database/static-creds/billing", Clock.systemUTC(),
				Duration.ofSeconds(5), new SplittableRandom(7));
	}

	@AfterEach
	void stop() {
		this.server.stop(0);
	}

	@Test
	void aReadIsAGrantReadAgainJustAfterTheRotation() throws Exception {
		this.answer.set(answer(7, "\"password\":\"s3cret-one\","));
		Grant grant = this.source.acquire();
		assertThat(grant.renewable()).isFalse();
		assertThat(grant.leaseId()).isEqualTo("database/static-creds/billing");
		assertThat(grant.refreshAfter()).isBetween(Duration.ofMillis(8500), Duration.ofMillis(13500));
		assertThat(grant.ttl()).isEqualTo(Duration.ofSeconds(7 + 10).plus(grant.refreshAfter().minusSeconds(8)));
		assertThat(grant.data()).containsEntry("username", "billing_app");
		assertThat(grant.toString()).doesNotContain("s3cret-one");
		assertThat(this.source.revokes()).isFalse();
	}

	@Test
	void aRotationDueAndNotMadeIsTransient() {
		this.answer.set(answer(0, "\"password\":\"s3cret-one\","));
		assertThatExceptionOfType(LeaseSourceException.class).isThrownBy(this.source::acquire)
			.satisfies((ex) -> assertThat(ex.getKind()).isEqualTo(LeaseSourceException.Kind.TRANSIENT))
			.satisfies((ex) -> assertThat(ex.getErrorClass()).isEqualTo("not-rotated-yet"));
	}

	@Test
	void anAnswerWithoutAPasswordIsTransientAndSaysNoSecret() {
		this.answer.set(answer(7, ""));
		assertThatExceptionOfType(LeaseSourceException.class).isThrownBy(this.source::acquire)
			.satisfies((ex) -> assertThat(ex.getErrorClass()).isEqualTo("malformed-response"));
	}

	@Test
	void theStaticPathsAreRecognised() {
		assertThat(StaticCredentialSource.isStatic("database/static-creds/billing")).isTrue();
		assertThat(StaticCredentialSource.isStatic("/db-eu/static-creds/billing/")).isTrue();
		assertThat(StaticCredentialSource.isStatic("database/creds/billing")).isFalse();
		assertThat(StaticCredentialSource.isStatic("database/static-creds/")).isFalse();
	}

	private static String answer(long ttl, String password) {
		return "{\"request_id\":\"r\",\"lease_id\":\"\",\"renewable\":false,\"lease_duration\":0,\"data\":{"
				+ "\"last_vault_rotation\":\"2026-12-04T20:00:00Z\"," + password + "\"rotation_period\":10,\"ttl\":"
				+ ttl + ",\"username\":\"billing_app\"},\"wrap_info\":null,\"warnings\":null,\"auth\":null}";
	}

}
