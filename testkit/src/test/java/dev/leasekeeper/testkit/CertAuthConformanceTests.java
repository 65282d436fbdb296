package dev.leasekeeper.testkit;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vault's TLS listener and its cert auth method ({@code auth/cert/login}) as the
 * simulator answers them, after hashicorp/vault's
 * {@code builtin/credential/cert/path_login.go}: a client certificate that chains to a
 * trusted certificate logs in (display name {@code cert-<entry>}, metadata
 * {@code cert_name}, {@code common_name}); without one, 400
 * {@code invalid certificate or no client certificate supplied}. Simulator only.
 */
class CertAuthConformanceTests {

	private static VaultSimulator simulator;

	@BeforeAll
	static void start() {
		simulator = VaultSimulator.builder()
			.tls()
			.certRole("orders", Duration.ofMinutes(20), Duration.ofHours(1))
			.build()
			.start();
	}

	@AfterAll
	static void stop() {
		simulator.close();
	}

	@Test
	void aClientCertificateSignedByTheTrustedCaLogsInOverTls() throws Exception {
		assertThat(simulator.uri().getScheme()).isEqualTo("https");
		VaultSimulator.ClientCertificate client = simulator.clientCertificate("orders-app", Duration.ofHours(1));
		HttpResponse<String> login = post(client(client), "auth/cert/login", "{}");
		assertThat(login.statusCode()).isEqualTo(200);
		@SuppressWarnings("unchecked")
		Map<String, Object> auth = (Map<String, Object>) JsonMapper.builder()
			.build()
			.readValue(login.body(), Map.class)
			.get("auth");
		assertThat(auth.get("lease_duration")).isEqualTo(1200);
		@SuppressWarnings("unchecked")
		Map<String, Object> metadata = (Map<String, Object>) auth.get("metadata");
		assertThat(metadata).containsEntry("cert_name", "orders").containsEntry("common_name", "orders-app");
	}

	@Test
	void withoutAClientCertificateTheLoginIsRefused() throws Exception {
		HttpResponse<String> login = post(client(null), "auth/cert/login", "{}");
		assertThat(login.statusCode()).isEqualTo(400);
		assertThat(login.body()).contains("invalid certificate or no client certificate supplied");
		HttpResponse<String> unknownEntry = post(client(simulator.clientCertificate("orders-app", Duration.ofHours(1))),
				"auth/cert/login", "{\"name\":\"billing\"}");
		assertThat(unknownEntry.statusCode()).isEqualTo(400);
	}

	private static HttpResponse<String> post(HttpClient http, String path, String body) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create(simulator.uri() + "/v1/" + path))
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static HttpClient client(VaultSimulator.ClientCertificate certificate) throws Exception {
		KeyStore trust = KeyStore.getInstance("PKCS12");
		trust.load(null, null);
		trust.setCertificateEntry("ca", simulator.caCertificate());
		TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		trustManagers.init(trust);
		KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
		KeyStore keys = KeyStore.getInstance("PKCS12");
		keys.load(null, null);
		if (certificate != null) {
			PrivateKey key = new JcaPEMKeyConverter()
				.getPrivateKey((PrivateKeyInfo) new PEMParser(new StringReader(certificate.privateKey())).readObject());
			Certificate leaf = CertificateFactory.getInstance("X.509")
				.generateCertificate(
						new ByteArrayInputStream(certificate.certificate().getBytes(StandardCharsets.US_ASCII)));
			keys.setKeyEntry("client", key, new char[0], new Certificate[] { leaf });
		}
		keyManagers.init(keys, new char[0]);
		SSLContext context = SSLContext.getInstance("TLS");
		context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
		return HttpClient.newBuilder().sslContext(context).build();
	}

}
