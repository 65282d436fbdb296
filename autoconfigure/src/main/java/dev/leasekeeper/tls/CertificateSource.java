package dev.leasekeeper.tls;

import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.vault.VaultFailures;

import org.springframework.util.Assert;
import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.core.VaultPkiOperations;
import org.springframework.vault.support.CertificateBundle;
import org.springframework.vault.support.VaultCertificateRequest;
import org.springframework.vault.support.VaultCertificateResponse;

/**
 * A certificate issued by Vault's PKI secrets engine ({@code pki/issue/<role>}) through
 * Spring Vault's {@link VaultPkiOperations}, as a grant the engine keeps: it cannot be
 * renewed, its TTL runs to the certificate's {@code notAfter}, and the engine re-issues
 * it before then. Its lease id is the certificate's serial number; its data holds what
 * Vault answered ({@code certificate}, {@code private_key}, ...) and {@code not_after}.
 * Revoked through {@code pki/revoke}.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class CertificateSource implements LeaseSource {

	/** The data field with the certificate's {@code notAfter}, ISO-8601. */
	public static final String NOT_AFTER = "not_after";

	/** The data field with the certificate's serial number, colon-separated hex. */
	public static final String SERIAL_NUMBER = "serial_number";

	private final VaultOperations vault;

	private final String path;

	private final String mount;

	private final String role;

	private final VaultCertificateRequest request;

	private final Clock clock;

	/**
	 * Create a new source.
	 * @param vault the Vault operations whose session token is used
	 * @param path the issuing path, {@code <mount>/issue/<role>}
	 * @param request what to ask for (common name, alternative names, TTL)
	 * @param clock the engine's clock, read before each request is sent
	 */
	public CertificateSource(VaultOperations vault, String path, VaultCertificateRequest request, Clock clock) {
		Assert.notNull(vault, "'vault' must not be null");
		Assert.notNull(request, "'request' must not be null");
		Assert.notNull(clock, "'clock' must not be null");
		String[] parts = split(path);
		Assert.isTrue(parts != null, () -> "'path' must be <mount>/issue/<role>, but was " + path);
		this.vault = vault;
		this.path = path;
		this.mount = parts[0];
		this.role = parts[1];
		this.request = request;
		this.clock = clock;
	}

	/**
	 * Split an issuing path into its mount and its role.
	 * @param path such as {@code pki/issue/web}
	 * @return the mount and the role, or {@code null} if the path is not an issuing path
	 */
	public static String @Nullable [] split(@Nullable String path) {
		if (path == null) {
			return null;
		}
		String normalized = path.strip().replaceAll("^/+|/+$", "");
		int at = normalized.lastIndexOf("/issue/");
		if (at <= 0) {
			return null;
		}
		String role = normalized.substring(at + "/issue/".length());
		if (role.isEmpty() || role.contains("/")) {
			return null;
		}
		return new String[] { normalized.substring(0, at), role };
	}

	@Override
	public Grant acquire() throws LeaseSourceException {
		Instant sent = this.clock.instant();
		String what = "issue " + this.path;
		VaultCertificateResponse response = VaultFailures.call(what,
				() -> this.vault.opsForPki(this.mount).issueCertificate(this.role, this.request));
		CertificateBundle bundle = (response != null) ? response.getData() : null;
		if (bundle == null || bundle.getCertificate() == null || bundle.getPrivateKey() == null
				|| bundle.getSerialNumber() == null) {
			throw LeaseSourceException.transientFailure("malformed-response",
					what + ": Vault answered without a certificate, its key or its serial number", null);
		}
		X509Certificate certificate;
		try {
			certificate = bundle.getX509Certificate();
		}
		catch (RuntimeException ex) {
			throw LeaseSourceException.transientFailure("malformed-response",
					what + ": Vault answered with a certificate that cannot be read", null);
		}
		Instant notAfter = certificate.getNotAfter().toInstant();
		Duration ttl = Duration.between(sent, notAfter);
		if (ttl.isNegative() || ttl.isZero()) {
			throw LeaseSourceException.permanent("expired-certificate",
					what + ": Vault issued a certificate valid until " + notAfter
							+ ", which has passed (is the clock of this host or of Vault wrong?)");
		}
		Map<String, Object> data = new LinkedHashMap<>();
		data.put("certificate", bundle.getCertificate());
		if (bundle.getIssuingCaCertificate() != null) {
			data.put("issuing_ca", bundle.getIssuingCaCertificate());
		}
		if (bundle.getCaChain() != null) {
			data.put("ca_chain", List.copyOf(bundle.getCaChain()));
		}
		data.put("private_key", bundle.getPrivateKey());
		if (bundle.getPrivateKeyType() != null) {
			data.put("private_key_type", bundle.getPrivateKeyType());
		}
		data.put(SERIAL_NUMBER, bundle.getSerialNumber());
		data.put(NOT_AFTER, notAfter.toString());
		List<String> warnings = (response.getWarnings() != null) ? response.getWarnings() : List.of();
		return new Grant(bundle.getSerialNumber(), ttl, false, data, warnings, sent);
	}

	@Override
	public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
		// the engine re-issues a grant that cannot be renewed: never called
		throw LeaseSourceException.permanent("not-renewable",
				"renew " + this.path + ": a certificate cannot be renewed, only re-issued");
	}

	@Override
	public void revoke(Grant current) throws LeaseSourceException {
		VaultFailures.call("revoke " + this.path, () -> {
			this.vault.opsForPki(this.mount).revoke(current.leaseId());
			return null;
		});
	}

	@Override
	public String describe() {
		return this.path;
	}

}
