package dev.leasekeeper.testkit;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vault's PKI secrets engine ({@code pki/issue/<role>}, {@code pki/revoke}) as the
 * simulator answers it, after hashicorp/vault's {@code builtin/logical/pki}
 * ({@code path_issue_sign.go}: unknown role; {@code issuing/issue_common.go}
 * {@code getCertificateNotAfter}: the request's TTL, else the role's, else the mount's,
 * capped by the role's max TTL with Vault's warning; {@code path_revoke.go} /
 * {@code crl_util.go}: revocation time, already-expired warning, unknown serial) and the
 * API documentation's response fields. Simulator only: a real Vault needs the mount, the
 * root CA and the role written first.
 */
class PkiConformanceTests {

	private static SimulatorClock clock;

	private static VaultSimulator simulator;

	private static VaultTarget vault;

	@BeforeAll
	static void start() {
		clock = new SimulatorClock();
		simulator = VaultSimulator.builder()
			.clock(clock)
			.pkiRole("web", Duration.ofMinutes(10), Duration.ofHours(1), "example.test")
			.build()
			.start();
		vault = VaultTarget.of(simulator);
	}

	@AfterAll
	static void stop() {
		simulator.close();
	}

	@Test
	void anIssuedCertificateChainsToTheCaAndCarriesItsNames() throws Exception {
		VaultTarget.Response issued = vault.post("pki/issue/web", simulator.rootToken(), Map.of("common_name",
				"orders.example.test", "alt_names", "api.example.test,localhost", "ip_sans", "127.0.0.1"));
		assertThat(issued.status()).isEqualTo(200);
		assertThat(issued.json()).containsEntry("lease_id", "")
			.containsEntry("renewable", false)
			.containsEntry("lease_duration", 0)
			.containsEntry("mount_type", "pki");
		Map<String, Object> data = issued.data();
		assertThat(data).containsKeys("certificate", "issuing_ca", "ca_chain", "private_key", "serial_number",
				"expiration");
		assertThat(data).containsEntry("private_key_type", "rsa");
		X509Certificate leaf = certificate((String) data.get("certificate"));
		X509Certificate ca = certificate((String) data.get("issuing_ca"));
		assertThat(ca).isEqualTo(simulator.caCertificate());
		PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
		parameters.setRevocationEnabled(false);
		CertPathValidator.getInstance("PKIX")
			.validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), parameters);
		assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=orders.example.test");
		assertThat(leaf.getSubjectAlternativeNames().stream().map((name) -> String.valueOf(name.get(1))).toList())
			.containsExactlyInAnyOrder("orders.example.test", "api.example.test", "localhost", "127.0.0.1");
		assertThat(leaf.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1");
		// the serial Vault prints, colon-separated
		assertThat((String) data.get("serial_number")).matches("([0-9a-f]{2}:)+[0-9a-f]{2}")
			.isEqualTo(PkiEngine.colonSerial(leaf.getSerialNumber()));
		assertThat(((Number) data.get("expiration")).longValue())
			.isEqualTo(leaf.getNotAfter().toInstant().getEpochSecond());
		// the key answers for the certificate (PKCS#1 PEM, Vault's default for RSA)
		assertThat((String) data.get("private_key")).startsWith("-----BEGIN RSA PRIVATE KEY-----");
		PrivateKey key = new JcaPEMKeyConverter()
			.getKeyPair(
					(PEMKeyPair) new PEMParser(new java.io.StringReader((String) data.get("private_key"))).readObject())
			.getPrivate();
		Signature signer = Signature.getInstance("SHA256withRSA");
		signer.initSign(key);
		signer.update("hello".getBytes(StandardCharsets.UTF_8));
		byte[] signature = signer.sign();
		Signature verifier = Signature.getInstance("SHA256withRSA");
		verifier.initVerify(leaf.getPublicKey());
		verifier.update("hello".getBytes(StandardCharsets.UTF_8));
		assertThat(verifier.verify(signature)).isTrue();
	}

	@Test
	void theTtlIsTheRolesAndIsBackdatedThirtySeconds() throws Exception {
		Instant before = clock.instant();
		Map<String, Object> data = vault
			.post("pki/issue/web", simulator.rootToken(), Map.of("common_name", "orders.example.test"))
			.data();
		X509Certificate leaf = certificate((String) data.get("certificate"));
		Duration validity = Duration.between(leaf.getNotBefore().toInstant(), leaf.getNotAfter().toInstant());
		assertThat(validity.toSeconds()).isBetween(629L, 631L);
		assertThat(leaf.getNotBefore().toInstant()).isBefore(before.minusSeconds(28));
	}

	@Test
	void aTtlBeyondTheRolesMaxIsCappedWithVaultsWarning() throws Exception {
		VaultTarget.Response issued = vault.post("pki/issue/web", simulator.rootToken(),
				Map.of("common_name", "orders.example.test", "ttl", "2h"));
		assertThat(issued.status()).isEqualTo(200);
		assertThat(issued.warnings())
			.containsExactly("TTL \"2h0m0s\" is longer than permitted maxTTL \"1h0m0s\", so maxTTL is being used");
		X509Certificate leaf = certificate((String) issued.data().get("certificate"));
		assertThat(Duration.between(clock.instant(), leaf.getNotAfter().toInstant()).toSeconds()).isBetween(3590L,
				3600L);
	}

	@Test
	void derFormatAnswersBase64AndPkcs8WhenAskedFor() throws Exception {
		Map<String, Object> data = vault
			.post("pki/issue/web", simulator.rootToken(),
					Map.of("common_name", "orders.example.test", "format", "der", "private_key_format", "pkcs8"))
			.data();
		X509Certificate leaf = (X509Certificate) CertificateFactory.getInstance("X.509")
			.generateCertificate(
					new ByteArrayInputStream(Base64.getDecoder().decode((String) data.get("certificate"))));
		assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=orders.example.test");
		byte[] key = Base64.getDecoder().decode((String) data.get("private_key"));
		assertThat(PrivateKeyInfo.getInstance(key)).isNotNull();
		assertThat(KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(key))).isNotNull();
	}

	@Test
	void refusalsAreVaults() throws Exception {
		VaultTarget.Response unknownRole = vault.post("pki/issue/billing", simulator.rootToken(),
				Map.of("common_name", "orders.example.test"));
		assertThat(unknownRole.status()).isEqualTo(400);
		assertThat(unknownRole.errors()).containsExactly("unknown role: billing");
		VaultTarget.Response foreign = vault.post("pki/issue/web", simulator.rootToken(),
				Map.of("common_name", "orders.other.test"));
		assertThat(foreign.status()).isEqualTo(400);
		assertThat(foreign.errors()).containsExactly("common name orders.other.test not allowed by this role");
		VaultTarget.Response noName = vault.post("pki/issue/web", simulator.rootToken(), Map.of());
		assertThat(noName.status()).isEqualTo(400);
		assertThat(noName.errors().get(0)).startsWith("the common_name field is required");
		VaultTarget.Response read = vault.get("pki/issue/web", simulator.rootToken());
		assertThat(read.status()).isEqualTo(405);
	}

	@Test
	void theApplicationPolicyMayIssueAndRevokeButNotMore() throws Exception {
		String token = simulator.createToken(Duration.ofHours(1), VaultSimulator.APPLICATION_POLICY);
		VaultTarget.Response issued = vault.post("pki/issue/web", token, Map.of("common_name", "orders.example.test"));
		assertThat(issued.status()).isEqualTo(200);
		assertThat(
				vault.post("pki/revoke", token, Map.of("serial_number", issued.data().get("serial_number"))).status())
			.isEqualTo(200);
		assertThat(vault.post("pki/root/generate/internal", token, Map.of("common_name", "x")).status()).isEqualTo(403);
	}

	@Test
	void revocationRecordsItsTimeOnceAndRefusesWhatItNeverIssued() throws Exception {
		String serial = (String) vault
			.post("pki/issue/web", simulator.rootToken(), Map.of("common_name", "orders.example.test"))
			.data()
			.get("serial_number");
		VaultTarget.Response revoked = vault.post("pki/revoke", simulator.rootToken(), Map.of("serial_number", serial));
		assertThat(revoked.status()).isEqualTo(200);
		assertThat(revoked.data()).containsEntry("state", "revoked").containsKey("revocation_time_rfc3339");
		assertThat(simulator.isCertificateRevoked(serial)).isTrue();
		VaultTarget.Response again = vault.post("pki/revoke", simulator.rootToken(), Map.of("serial_number", serial));
		assertThat(again.data().get("revocation_time")).isEqualTo(revoked.data().get("revocation_time"));
		VaultTarget.Response unknown = vault.post("pki/revoke", simulator.rootToken(),
				Map.of("serial_number", "01:02:03"));
		assertThat(unknown.status()).isEqualTo(400);
		assertThat(unknown.errors()).containsExactly("certificate with serial 01:02:03 not found");
	}

	@Test
	void anExpiredCertificateIsNotAddedToTheCrl() throws Exception {
		String serial = (String) vault
			.post("pki/issue/web", simulator.rootToken(), Map.of("common_name", "orders.example.test", "ttl", "60s"))
			.data()
			.get("serial_number");
		clock.jump(Duration.ofMinutes(2));
		try {
			VaultTarget.Response late = vault.post("pki/revoke", simulator.rootToken(),
					Map.of("serial_number", serial));
			assertThat(late.status()).isEqualTo(200);
			assertThat(late.warnings())
				.containsExactly("certificate with serial " + serial + " already expired; refusing to add to CRL");
			assertThat(simulator.isCertificateRevoked(serial)).isFalse();
		}
		finally {
			clock.jump(Duration.ofMinutes(-2));
		}
	}

	private static X509Certificate certificate(String pem) throws Exception {
		return (X509Certificate) CertificateFactory.getInstance("X.509")
			.generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
	}

}
