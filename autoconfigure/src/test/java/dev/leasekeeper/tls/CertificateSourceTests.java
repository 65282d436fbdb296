package dev.leasekeeper.tls;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;
import org.springframework.vault.support.VaultCertificateRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A certificate as a grant, against the simulator's PKI engine: its TTL runs to
 * {@code notAfter}, it cannot be renewed, Vault's refusals are classified, and a
 * certificate that does not match its key or has expired never reaches the SSL bundle.
 */
class CertificateSourceTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.pkiRole("web", Duration.ofMinutes(10), Duration.ofHours(1), "example.test"))
		.build();

	private final VaultTemplate template = new VaultTemplate(VaultEndpoint.from(vault.simulator().uri()),
			new TokenAuthentication(vault.simulator().rootToken()));

	@Test
	void aCertificateIsAGrantThatCannotBeRenewedAndEndsAtItsNotAfter() throws Exception {
		Grant grant = source("pki/issue/web", "orders.example.test").acquire();
		assertThat(grant.renewable()).isFalse();
		assertThat(grant.ttl().toSeconds()).isBetween(598L, 600L);
		Instant notAfter = Instant.parse((String) grant.data().get(CertificateSource.NOT_AFTER));
		assertThat(grant.expiry()).isCloseTo(notAfter, org.assertj.core.api.Assertions.within(Duration.ofSeconds(2)));
		assertThat(grant.leaseId()).isEqualTo(grant.data().get(CertificateSource.SERIAL_NUMBER));
		assertThat(vault.simulator().issuedCertificates()).contains(grant.leaseId());
		assertThat(grant.toString()).doesNotContain((String) grant.data().get("private_key"));
		source("pki/issue/web", "orders.example.test").revoke(grant);
		assertThat(vault.simulator().isCertificateRevoked(grant.leaseId())).isTrue();
	}

	@Test
	void vaultsRefusalsArePermanentAndSayWhy() {
		assertThatExceptionOfType(LeaseSourceException.class)
			.isThrownBy(() -> source("pki/issue/billing", "orders.example.test").acquire())
			.satisfies((ex) -> assertThat(ex.getKind()).isEqualTo(LeaseSourceException.Kind.PERMANENT))
			.withMessageContaining("unknown role: billing");
		assertThatExceptionOfType(LeaseSourceException.class)
			.isThrownBy(() -> source("pki/issue/web", "orders.other.test").acquire())
			.satisfies((ex) -> assertThat(ex.getKind()).isEqualTo(LeaseSourceException.Kind.PERMANENT))
			.withMessageContaining("not allowed by this role");
	}

	@Test
	void theIssuingPathIsSplitIntoMountAndRole() {
		assertThat(CertificateSource.split("pki/issue/web")).containsExactly("pki", "web");
		assertThat(CertificateSource.split("/pki_int/eu/issue/web/")).containsExactly("pki_int/eu", "web");
		assertThat(CertificateSource.split("pki/sign/web")).isNull();
		assertThat(CertificateSource.split("issue/web")).isNull();
		assertThat(CertificateSource.split("pki/issue/")).isNull();
	}

	@Test
	void aCertificateThatDoesNotMatchItsKeyIsRejectedAndTheBundleKeepsTheOneInUse() throws Exception {
		CertificateBundles bundles = new CertificateBundles(Clock.systemUTC());
		DefaultSslBundleRegistry registry = new DefaultSslBundleRegistry();
		Grant first = source("pki/issue/web", "orders.example.test").acquire();
		bundles.consumer("web", "web").accept(snapshot(first.data()), null);
		bundles.register(registry, "web", "web");
		bundles.releaseUpdates();
		Grant second = source("pki/issue/web", "orders.example.test").acquire();
		Map<String, Object> mismatched = new HashMap<>(second.data());
		mismatched.put("private_key", first.data().get("private_key"));
		assertThatExceptionOfType(java.security.GeneralSecurityException.class)
			.isThrownBy(() -> bundles.consumer("web", "web").accept(snapshot(mismatched), snapshot(first.data())))
			.withMessageContaining("does not match its private key")
			.withMessageNotContaining((String) first.data().get("private_key"));
		assertThat(served(registry)).isEqualTo(first.leaseId());
		bundles.consumer("web", "web").accept(snapshot(second.data()), snapshot(first.data()));
		assertThat(served(registry)).isEqualTo(second.leaseId());
	}

	/**
	 * Updates are held while the web server starts (Tomcat would take one that arrives
	 * while its connector binds without an {@code SSLContext}): the registry serves the
	 * first certificate until they are released, then the latest one taken.
	 */
	@Test
	void aCertificateTakenWhileUpdatesAreHeldReachesTheBundleWhenTheyAreReleased() throws Exception {
		CertificateBundles bundles = new CertificateBundles(Clock.systemUTC());
		DefaultSslBundleRegistry registry = new DefaultSslBundleRegistry();
		Grant first = source("pki/issue/web", "orders.example.test").acquire();
		bundles.consumer("web", "web").accept(snapshot(first.data()), null);
		bundles.register(registry, "web", "web");
		List<String> updates = new ArrayList<>();
		registry.addBundleUpdateHandler("web", (bundle) -> updates.add(served(bundle)));
		Grant second = source("pki/issue/web", "orders.example.test").acquire();
		Grant third = source("pki/issue/web", "orders.example.test").acquire();
		bundles.consumer("web", "web").accept(snapshot(second.data()), snapshot(first.data()));
		bundles.consumer("web", "web").accept(snapshot(third.data()), snapshot(second.data()));
		assertThat(served(registry.getBundle("web"))).isEqualTo(first.leaseId());
		assertThat(updates).isEmpty();
		bundles.releaseUpdates();
		assertThat(updates).containsExactly(third.leaseId());
		Grant fourth = source("pki/issue/web", "orders.example.test").acquire();
		bundles.consumer("web", "web").accept(snapshot(fourth.data()), snapshot(third.data()));
		assertThat(updates).containsExactly(third.leaseId(), fourth.leaseId());
		bundles.holdUpdates();
		Grant fifth = source("pki/issue/web", "orders.example.test").acquire();
		bundles.consumer("web", "web").accept(snapshot(fifth.data()), snapshot(fourth.data()));
		assertThat(served(registry.getBundle("web"))).isEqualTo(fourth.leaseId());
		bundles.releaseUpdates();
		assertThat(updates).containsExactly(third.leaseId(), fourth.leaseId(), fifth.leaseId());
	}

	@Test
	void anExpiredCertificateIsRejected() throws Exception {
		Grant grant = source("pki/issue/web", "orders.example.test").acquire();
		CertificateBundles later = new CertificateBundles(Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
		assertThatExceptionOfType(java.security.cert.CertificateExpiredException.class)
			.isThrownBy(() -> later.consumer("web", "web").accept(snapshot(grant.data()), null));
		assertThat(later.bundle("web")).isNull();
	}

	private static String served(DefaultSslBundleRegistry registry) throws Exception {
		return served(registry.getBundle("web"));
	}

	private static String served(SslBundle bundle) {
		java.security.cert.X509Certificate certificate;
		try {
			certificate = (java.security.cert.X509Certificate) bundle.getStores()
				.getKeyStore()
				.getCertificate(CertificateBundles.KEY_ALIAS);
		}
		catch (java.security.KeyStoreException ex) {
			throw new IllegalStateException(ex);
		}
		String hex = certificate.getSerialNumber().toString(16);
		hex = (hex.length() % 2 == 1) ? "0" + hex : hex;
		return hex.replaceAll("(..)(?!$)", "$1:");
	}

	private static LeaseSnapshot snapshot(Map<String, Object> data) {
		return new LeaseSnapshot("web", 1, (String) data.get(CertificateSource.SERIAL_NUMBER), LeaseState.CEILING, null,
				null, null, null, null, data);
	}

	private CertificateSource source(String path, String commonName) {
		return new CertificateSource(this.template, path, VaultCertificateRequest.create(commonName),
				Clock.systemUTC());
	}

}
