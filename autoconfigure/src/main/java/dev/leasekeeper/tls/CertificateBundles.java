package dev.leasekeeper.tls;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseSnapshot;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundleKey;
import org.springframework.boot.ssl.SslBundleRegistry;
import org.springframework.boot.ssl.SslStoreBundle;
import org.springframework.vault.support.CertificateBundle;

/**
 * The SSL bundles fed by certificates: each new certificate is read, checked (its key
 * signs what its certificate verifies, it is valid now, an {@code SSLContext} can be made
 * from it) and then put into its Spring Boot SSL bundle —
 * {@link SslBundleRegistry#registerBundle registered} once Boot's registry asks for it,
 * {@link SslBundleRegistry#updateBundle updated} on each re-issue, so that a web server
 * whose {@code server.ssl.bundle} names it serves the new certificate to new connections
 * without a restart. A certificate that fails a check is rejected: the engine keeps the
 * one in use and re-issues.
 * <p>
 * Updates are held until {@link #releaseUpdates() released}, and again once
 * {@link #holdUpdates() held}: the application releases them when its web server has
 * started and holds them before it stops. Tomcat takes an update that arrives while its
 * connector binds without making an {@code SSLContext} for it, and then serves no TLS
 * until the next update; a held update reaches the registry, the latest certificate of
 * each bundle, when updates are released.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class CertificateBundles {

	private static final Log logger = LogFactory.getLog(CertificateBundles.class);

	/** The alias of the key entry in a bundle's key store. */
	public static final String KEY_ALIAS = "leasekeeper";

	private final Clock clock;

	private final SecureRandom random = new SecureRandom();

	/** The bundle of each SSL bundle name, once a certificate was taken. */
	private final Map<String, SslBundle> bundles = new ConcurrentHashMap<>();

	/** Boot's registry, once it asked for the bundles. */
	private volatile @Nullable SslBundleRegistry registry;

	/** Whether a new certificate reaches the registry when it is taken. */
	private boolean updating;

	/** What was taken while updates were held: the certificate of each bundle name. */
	private final Map<String, String> held = new LinkedHashMap<>();

	/**
	 * Create a new set of bundles.
	 * @param clock the clock that says whether a certificate is valid now
	 */
	public CertificateBundles(Clock clock) {
		this.clock = clock;
	}

	/**
	 * Return the synchronous consumer of a certificate: it puts each new certificate into
	 * the named SSL bundle.
	 * @param certificateName the certificate's name, for messages
	 * @param bundleName the SSL bundle it feeds
	 * @return the consumer
	 */
	public LeaseListener consumer(String certificateName, String bundleName) {
		return new LeaseListener() {

			@Override
			public void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) throws Exception {
				take(certificateName, bundleName, candidate);
			}

		};
	}

	/**
	 * Register a bundle in Boot's registry, with the certificate taken so far; later
	 * certificates update it.
	 * @param registry Boot's registry
	 * @param certificateName the certificate's name, for messages
	 * @param bundleName the SSL bundle's name
	 * @throws IllegalStateException if no certificate was taken yet
	 */
	public synchronized void register(SslBundleRegistry registry, String certificateName, String bundleName) {
		SslBundle bundle = this.bundles.get(bundleName);
		if (bundle == null) {
			throw new IllegalStateException("Certificate '" + certificateName + "' was not issued yet, so SSL bundle '"
					+ bundleName + "' cannot be registered; see the lease's log lines for why Vault did not issue it");
		}
		registry.registerBundle(bundleName, bundle);
		this.held.remove(bundleName);
		this.registry = registry;
	}

	/**
	 * Let new certificates reach Boot's registry from now on, beginning with the latest
	 * of each bundle taken while updates were held.
	 */
	public synchronized void releaseUpdates() {
		this.updating = true;
		SslBundleRegistry registry = this.registry;
		if (registry != null) {
			this.held.forEach((bundleName, certificate) -> update(registry, bundleName, certificate));
		}
		this.held.clear();
	}

	/**
	 * Keep new certificates from Boot's registry until updates are released again; each
	 * bundle keeps serving the certificate it has.
	 */
	public synchronized void holdUpdates() {
		this.updating = false;
	}

	/**
	 * Return the bundle a certificate feeds, once one was taken.
	 * @param bundleName the SSL bundle's name
	 * @return the bundle, or {@code null}
	 */
	public @Nullable SslBundle bundle(String bundleName) {
		return this.bundles.get(bundleName);
	}

	private synchronized void take(String certificateName, String bundleName, LeaseSnapshot candidate)
			throws GeneralSecurityException {
		SslBundle bundle = build(certificateName, candidate);
		this.bundles.put(bundleName, bundle);
		SslBundleRegistry registry = this.registry;
		if (registry == null) {
			// registered with the latest certificate when Boot's registry asks
			return;
		}
		String certificate = "Certificate '" + certificateName + "' (serial "
				+ candidate.data().get(CertificateSource.SERIAL_NUMBER) + ", valid until "
				+ candidate.data().get(CertificateSource.NOT_AFTER) + ")";
		if (this.updating) {
			update(registry, bundleName, certificate);
		}
		else {
			this.held.put(bundleName, certificate);
			logger.info(certificate + " will serve SSL bundle '" + bundleName
					+ "' once the web server runs (updates are held while the application starts or stops)");
		}
	}

	private void update(SslBundleRegistry registry, String bundleName, String certificate) {
		SslBundle bundle = this.bundles.get(bundleName);
		if (bundle != null) {
			registry.updateBundle(bundleName, bundle);
			logger.info(certificate + " now serves SSL bundle '" + bundleName + "'");
		}
	}

	private SslBundle build(String certificateName, LeaseSnapshot candidate) throws GeneralSecurityException {
		Map<String, Object> data = candidate.data();
		CertificateBundle certificate;
		KeyStore keyStore;
		KeyStore trustStore;
		String password = HexFormat.of().formatHex(nextBytes(this.random, 16));
		try {
			certificate = CertificateBundle.of(text(data, CertificateSource.SERIAL_NUMBER), text(data, "certificate"),
					text(data, "issuing_ca"), text(data, "private_key"), (String) data.get("private_key_type"));
			keyStore = certificate.createKeyStore(KEY_ALIAS, true, password);
			trustStore = certificate.createTrustStore(true);
		}
		catch (RuntimeException ex) {
			// the message may quote what it could not read: never repeated
			throw new GeneralSecurityException("Certificate '" + certificateName + "' (serial "
					+ data.get(CertificateSource.SERIAL_NUMBER) + ") cannot be read: " + ex.getClass().getSimpleName());
		}
		X509Certificate x509 = certificate.getX509Certificate();
		x509.checkValidity(java.util.Date.from(this.clock.instant()));
		PrivateKey key = (PrivateKey) keyStore.getKey(KEY_ALIAS, password.toCharArray());
		if (!signs(key, x509)) {
			throw new GeneralSecurityException("Certificate '" + certificateName + "' (serial "
					+ data.get(CertificateSource.SERIAL_NUMBER) + ") does not match its private key");
		}
		SslBundle bundle = SslBundle.of(SslStoreBundle.of(keyStore, password, trustStore),
				SslBundleKey.of(password, KEY_ALIAS));
		// fails here, not in the web server, if the key store is unusable
		bundle.createSslContext();
		return bundle;
	}

	private static byte[] nextBytes(SecureRandom random, int count) {
		byte[] bytes = new byte[count];
		random.nextBytes(bytes);
		return bytes;
	}

	private static boolean signs(PrivateKey key, X509Certificate certificate) throws GeneralSecurityException {
		String algorithm = switch (key.getAlgorithm()) {
			case "RSA" -> "SHA256withRSA";
			case "EC" -> "SHA256withECDSA";
			case "Ed25519" -> "Ed25519";
			default -> null;
		};
		if (algorithm == null) {
			// a key type this check cannot sign with: the SSLContext is the check
			return true;
		}
		byte[] probe = "leasekeeper".getBytes(StandardCharsets.US_ASCII);
		Signature signer = Signature.getInstance(algorithm);
		signer.initSign(key);
		signer.update(probe);
		byte[] signature = signer.sign();
		Signature verifier = Signature.getInstance(algorithm);
		verifier.initVerify(certificate.getPublicKey());
		verifier.update(probe);
		return verifier.verify(signature);
	}

	private static String text(Map<String, Object> data, String key) throws GeneralSecurityException {
		Object value = data.get(key);
		if (!(value instanceof String text) || text.isEmpty()) {
			throw new GeneralSecurityException("Vault's answer has no " + key);
		}
		return text;
	}

}
