package dev.leasekeeper.testkit;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.jspecify.annotations.Nullable;

/**
 * Vault's PKI secrets engine, mounted at {@code pki/}: one root CA it generates itself,
 * roles, {@code pki/issue/<role>} and {@code pki/revoke}, with Vault's TTL rules, its
 * name checks and its answers (see {@code PkiEngine} in testkit/README.md for the
 * sources). Certificates are real: signed by the CA with BouncyCastle's X.509 builder, so
 * that a TLS client trusting {@link #caCertificate()} validates them.
 *
 * @author Leasekeeper
 */
final class PkiEngine {

	/** Vault's system default and max lease TTL: 32 days. */
	static final Duration MOUNT_TTL = Duration.ofHours(768);

	/**
	 * Vault backdates a certificate's {@code notBefore} by 30 s
	 * ({@code not_before_duration}).
	 */
	private static final Duration NOT_BEFORE = Duration.ofSeconds(30);

	private final Clock clock;

	private final SecureRandom random = new SecureRandom();

	private final Map<String, Role> roles = new ConcurrentHashMap<>();

	/** Issued certificates by colon-separated serial. */
	private final Map<String, X509Certificate> issued = new ConcurrentHashMap<>();

	/** Revocation times (Unix seconds) by colon-separated serial. */
	private final Map<String, Long> revoked = new ConcurrentHashMap<>();

	private @Nullable Authority authority;

	PkiEngine(Clock clock) {
		this.clock = clock;
	}

	void role(String name, Role role) {
		this.roles.put(name, role);
	}

	Set<String> roleNames() {
		return Set.copyOf(this.roles.keySet());
	}

	/** The CA's certificate, made when first needed. */
	synchronized X509Certificate caCertificate() {
		return authority().certificate;
	}

	boolean isRevoked(String serial) {
		return this.revoked.containsKey(serial);
	}

	Set<String> issuedSerials() {
		return Set.copyOf(this.issued.keySet());
	}

	/**
	 * {@code pki/issue/<role>}: a key pair and a certificate for it, as Vault's
	 * {@code pathIssue} and {@code getCertificateNotAfter} answer.
	 * @return the response's data and its warnings
	 */
	Issued issue(String roleName, Map<String, Object> body) {
		Role role = this.roles.get(roleName);
		if (role == null) {
			throw VaultError.badRequest("unknown role: " + roleName);
		}
		String format = text(body, "format", "pem");
		if (!List.of("pem", "der", "pem_bundle").contains(format)) {
			throw VaultError.badRequest("the \"format\" path parameter must be \"pem\", \"der\", or \"pem_bundle\"");
		}
		String keyFormat = text(body, "private_key_format", "der");
		if (!List.of("", "der", "pem", "pkcs8").contains(keyFormat)) {
			throw VaultError.badRequest(
					"the \"private_key_format\" field must be \"der\", \"pem\", \"pkcs8\", or empty (defaults to der)");
		}
		String commonName = text(body, "common_name", "");
		if (commonName.isEmpty()) {
			throw VaultError.badRequest("the common_name field is required, or must be provided in a CSR with "
					+ "\"use_csr_common_name\" set to true, unless \"require_cn\" is set to false");
		}
		List<String> dnsNames = new ArrayList<>();
		dnsNames.add(commonName);
		for (String altName : list(body, "alt_names")) {
			if (!dnsNames.contains(altName)) {
				dnsNames.add(altName);
			}
		}
		if (!role.allows(commonName)) {
			throw VaultError.badRequest("common name " + commonName + " not allowed by this role");
		}
		for (String name : dnsNames) {
			if (!role.allows(name)) {
				throw VaultError.badRequest("subject alternate name " + name + " not allowed by this role");
			}
		}
		List<String> ipSans = list(body, "ip_sans");
		if (!ipSans.isEmpty() && !role.allowIpSans()) {
			throw VaultError
				.badRequest("IP Subject Alternative Names are not allowed in this role, but was provided " + ipSans);
		}
		List<String> warnings = new ArrayList<>();
		Duration requested = VaultDurations.parse("ttl", body.get("ttl"));
		Duration ttl = (requested != null && !requested.isZero()) ? requested
				: (role.ttl() != null && !role.ttl().isZero()) ? role.ttl() : MOUNT_TTL;
		Duration maxTtl = (role.maxTtl() != null && !role.maxTtl().isZero()) ? role.maxTtl() : MOUNT_TTL;
		if (ttl.compareTo(maxTtl) > 0) {
			warnings.add("TTL \"" + goDuration(ttl) + "\" is longer than permitted maxTTL \"" + goDuration(maxTtl)
					+ "\", so maxTTL is being used");
			ttl = maxTtl;
		}
		Instant now = this.clock.instant();
		Instant notAfter = now.plus(ttl);
		Authority ca;
		synchronized (this) {
			ca = authority();
		}
		if (notAfter.isAfter(ca.certificate.getNotAfter().toInstant())) {
			throw VaultError.badRequest("cannot satisfy request, as TTL would result in notAfter of " + notAfter
					+ " that is beyond the expiration of the CA certificate at "
					+ ca.certificate.getNotAfter().toInstant());
		}
		KeyPair keys = role.keyType().generate(this.random);
		X509Certificate certificate = sign(ca, commonName, dnsNames, ipSans, keys, now.minus(NOT_BEFORE), notAfter);
		String serial = colonSerial(certificate.getSerialNumber());
		this.issued.put(serial, certificate);
		boolean der = format.equals("der");
		Map<String, Object> data = new LinkedHashMap<>();
		String issuingCa = der ? base64(encoded(ca.certificate)) : pem(ca.certificate);
		String leaf = der ? base64(encoded(certificate)) : pem(certificate);
		data.put("certificate", format.equals("pem_bundle") ? leaf + "\n" + issuingCa : leaf);
		data.put("issuing_ca", issuingCa);
		data.put("ca_chain", List.of(issuingCa));
		data.put("private_key", privateKey(keys, keyFormat, der, role.keyType()));
		data.put("private_key_type", role.keyType().vaultName);
		data.put("serial_number", serial);
		data.put("expiration", notAfter.getEpochSecond());
		return new Issued(data, warnings);
	}

	/**
	 * A key pair and a certificate for it signed by the CA, outside any role: the
	 * simulator's own TLS certificate, or a client certificate for the cert auth method.
	 */
	Leaf leaf(String commonName, List<String> dnsNames, List<String> ipSans, Duration validity) {
		Authority ca;
		synchronized (this) {
			ca = authority();
		}
		KeyPair keys = KeyType.EC.generate(this.random);
		Instant now = this.clock.instant();
		List<String> names = new ArrayList<>(dnsNames);
		if (!names.contains(commonName)) {
			names.add(0, commonName);
		}
		X509Certificate certificate = sign(ca, commonName, names, ipSans, keys, now.minus(NOT_BEFORE),
				now.plus(validity));
		return new Leaf(keys, certificate, ca.certificate);
	}

	/**
	 * Return whether a certificate was signed by the CA.
	 */
	boolean signedByCa(X509Certificate certificate) {
		Authority ca;
		synchronized (this) {
			ca = authority();
		}
		try {
			certificate.verify(ca.certificate.getPublicKey());
			certificate.checkValidity(java.util.Date.from(this.clock.instant()));
			return true;
		}
		catch (GeneralSecurityException ex) {
			return false;
		}
	}

	/**
	 * {@code pki/revoke}: Vault's {@code revokeCert} — the revocation time of a
	 * certificate revoked now or before, a warning for one already expired, an error for
	 * a serial it never issued.
	 */
	Issued revoke(Map<String, Object> body) {
		String serial = text(body, "serial_number", "").toLowerCase().replace('-', ':');
		if (serial.isEmpty()) {
			throw VaultError.badRequest("The serial number must be provided");
		}
		X509Certificate certificate = this.issued.get(serial);
		if (certificate == null) {
			throw VaultError.badRequest("certificate with serial " + serial + " not found");
		}
		Instant now = this.clock.instant();
		Long at = this.revoked.get(serial);
		if (at == null) {
			if (certificate.getNotAfter().toInstant().isBefore(now.plusSeconds(2))) {
				return new Issued(null,
						List.of("certificate with serial " + serial + " already expired; refusing to add to CRL"));
			}
			at = now.getEpochSecond();
			this.revoked.put(serial, at);
		}
		Map<String, Object> data = new LinkedHashMap<>();
		data.put("revocation_time", at);
		data.put("revocation_time_rfc3339", Instant.ofEpochSecond(at).toString());
		data.put("state", "revoked");
		return new Issued(data, List.of());
	}

	private Authority authority() {
		if (this.authority == null) {
			try {
				KeyPair keys = KeyType.EC.generate(this.random);
				Instant now = this.clock.instant();
				X500Name name = new X500NameBuilder(BCStyle.INSTANCE)
					.addRDN(BCStyle.CN, "Leasekeeper Simulator Root CA")
					.build();
				JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
				X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial(),
						Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(3650))), name,
						keys.getPublic())
					.addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
					.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
					.addExtension(Extension.subjectKeyIdentifier, false,
							extensions.createSubjectKeyIdentifier(keys.getPublic()));
				X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
						builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
				this.authority = new Authority(keys, certificate);
			}
			catch (GeneralSecurityException | OperatorCreationException | IOException ex) {
				throw new IllegalStateException("Cannot make the simulator's CA", ex);
			}
		}
		return this.authority;
	}

	private X509Certificate sign(Authority ca, String commonName, List<String> dnsNames, List<String> ipSans,
			KeyPair keys, Instant notBefore, Instant notAfter) {
		try {
			X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
			List<GeneralName> names = new ArrayList<>();
			dnsNames.forEach((name) -> names.add(new GeneralName(GeneralName.dNSName, name)));
			for (String ip : ipSans) {
				names.add(new GeneralName(GeneralName.iPAddress, ip));
			}
			JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
			X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(ca.certificate, serial(),
					Date.from(notBefore), Date.from(notAfter), subject, keys.getPublic())
				.addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
				.addExtension(Extension.keyUsage, true,
						new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment | KeyUsage.keyAgreement))
				.addExtension(Extension.extendedKeyUsage, false,
						new ExtendedKeyUsage(
								new KeyPurposeId[] { KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth }))
				.addExtension(Extension.subjectAlternativeName, false,
						new GeneralNames(names.toArray(GeneralName[]::new)))
				.addExtension(Extension.authorityKeyIdentifier, false,
						extensions.createAuthorityKeyIdentifier(ca.certificate))
				.addExtension(Extension.subjectKeyIdentifier, false,
						extensions.createSubjectKeyIdentifier(keys.getPublic()));
			return new JcaX509CertificateConverter().getCertificate(
					builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(ca.keys.getPrivate())));
		}
		catch (IllegalArgumentException ex) {
			throw VaultError.badRequest("the value \"" + ipSans + "\" is not a valid IP address");
		}
		catch (GeneralSecurityException | OperatorCreationException | IOException ex) {
			throw new IllegalStateException("Cannot sign a certificate", ex);
		}
	}

	/** Vault's serials: 20 random bytes (positive), printed as colon-separated hex. */
	private BigInteger serial() {
		byte[] bytes = new byte[20];
		this.random.nextBytes(bytes);
		bytes[0] &= 0x7f;
		return new BigInteger(1, bytes);
	}

	static String colonSerial(BigInteger serial) {
		String hex = serial.toString(16);
		if (hex.length() % 2 == 1) {
			hex = "0" + hex;
		}
		StringBuilder result = new StringBuilder();
		for (int i = 0; i < hex.length(); i += 2) {
			if (i > 0) {
				result.append(':');
			}
			result.append(hex, i, i + 2);
		}
		return result.toString();
	}

	/** Go's {@code time.Duration.String()}, which Vault's {@code %q} prints. */
	static String goDuration(Duration duration) {
		long seconds = duration.toSeconds();
		if (seconds < 60) {
			return seconds + "s";
		}
		if (seconds < 3600) {
			return (seconds / 60) + "m" + (seconds % 60) + "s";
		}
		return (seconds / 3600) + "h" + (seconds % 3600 / 60) + "m" + (seconds % 60) + "s";
	}

	/**
	 * The private key as Vault answers it: {@code private_key_format} {@code pkcs8} gives
	 * PKCS#8; the default ({@code der}) gives an RSA key in PKCS#1 and an EC key in SEC
	 * 1, base64 for {@code format=der}, PEM otherwise.
	 */
	private String privateKey(KeyPair keys, String keyFormat, boolean der, KeyType type) {
		byte[] pkcs8 = keys.getPrivate().getEncoded();
		if (keyFormat.equals("pkcs8")) {
			return der ? base64(pkcs8) : pem("PRIVATE KEY", pkcs8);
		}
		byte[] plain;
		try {
			plain = PrivateKeyInfo.getInstance(pkcs8).parsePrivateKey().toASN1Primitive().getEncoded();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return der ? base64(plain) : pem((type == KeyType.RSA) ? "RSA PRIVATE KEY" : "EC PRIVATE KEY", plain);
	}

	private static byte[] encoded(X509Certificate certificate) {
		try {
			return certificate.getEncoded();
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String pem(X509Certificate certificate) {
		StringWriter out = new StringWriter();
		try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
			writer.writeObject(certificate);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return out.toString().trim();
	}

	private static String pem(String type, byte[] bytes) {
		return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] { '\n' }).encodeToString(bytes)
				+ "\n-----END " + type + "-----";
	}

	private static String base64(byte[] bytes) {
		return Base64.getEncoder().encodeToString(bytes);
	}

	private static String text(Map<String, Object> body, String field, String fallback) {
		Object value = body.get(field);
		if (value == null) {
			return fallback;
		}
		if (!(value instanceof String text)) {
			throw VaultError.badRequest("error converting input " + field + ": expected a string");
		}
		return text;
	}

	/**
	 * A comma-separated string or a JSON list, as Vault's {@code TypeCommaStringSlice}.
	 */
	private static List<String> list(Map<String, Object> body, String field) {
		Object value = body.get(field);
		List<String> result = new ArrayList<>();
		if (value instanceof List<?> items) {
			items.forEach((item) -> result.add(String.valueOf(item).trim()));
		}
		else if (value instanceof String text) {
			for (String item : text.split(",")) {
				if (!item.isBlank()) {
					result.add(item.trim());
				}
			}
		}
		else if (value != null) {
			throw VaultError.badRequest("error converting input " + field + ": expected a comma-separated list");
		}
		result.removeIf(String::isEmpty);
		return result;
	}

	/**
	 * A PKI role ({@code pki/roles/<name>}).
	 *
	 * @param ttl its {@code ttl}, or {@code null} for the mount's default
	 * @param maxTtl its {@code max_ttl}, or {@code null} for the mount's
	 * @param allowedDomains its {@code allowed_domains}
	 * @param allowSubdomains its {@code allow_subdomains}
	 * @param allowBareDomains its {@code allow_bare_domains}
	 * @param allowLocalhost its {@code allow_localhost} (Vault's default: {@code true})
	 * @param allowAnyName its {@code allow_any_name}
	 * @param allowIpSans its {@code allow_ip_sans} (Vault's default: {@code true})
	 * @param keyType its {@code key_type}
	 */
	record Role(@Nullable Duration ttl, @Nullable Duration maxTtl, List<String> allowedDomains, boolean allowSubdomains,
			boolean allowBareDomains, boolean allowLocalhost, boolean allowAnyName, boolean allowIpSans,
			KeyType keyType) {

		boolean allows(String name) {
			if (this.allowAnyName || (this.allowLocalhost && name.equals("localhost"))) {
				return true;
			}
			for (String domain : this.allowedDomains) {
				if (this.allowBareDomains && name.equals(domain)) {
					return true;
				}
				if (this.allowSubdomains && name.endsWith("." + domain)) {
					return true;
				}
			}
			return false;
		}

	}

	/** The key types Vault issues. */
	enum KeyType {

		/** RSA 2048, Vault's default. */
		RSA("rsa"),

		/** EC P-256. */
		EC("ec");

		private final String vaultName;

		KeyType(String vaultName) {
			this.vaultName = vaultName;
		}

		KeyPair generate(SecureRandom random) {
			try {
				if (this == RSA) {
					KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
					generator.initialize(2048, random);
					return generator.generateKeyPair();
				}
				KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
				generator.initialize(new ECGenParameterSpec("secp256r1"), random);
				return generator.generateKeyPair();
			}
			catch (GeneralSecurityException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	/**
	 * An answer: its data (or none) and its warnings.
	 *
	 * @param data the data
	 * @param warnings the warnings
	 */
	record Issued(@Nullable Map<String, Object> data, List<String> warnings) {
	}

	private record Authority(KeyPair keys, X509Certificate certificate) {
	}

	/**
	 * A key pair with its certificate, and the CA that signed it.
	 *
	 * @param keys the key pair
	 * @param certificate its certificate
	 * @param ca the CA's certificate
	 */
	record Leaf(KeyPair keys, X509Certificate certificate, X509Certificate ca) {

		/** A PKCS#12 key store with the key and its chain under {@code alias}. */
		java.security.KeyStore keyStore(String alias, char[] password) {
			try {
				java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
				store.load(null, null);
				store.setKeyEntry(alias, this.keys.getPrivate(), password,
						new java.security.cert.Certificate[] { this.certificate, this.ca });
				return store;
			}
			catch (GeneralSecurityException | IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		/** The certificate in PEM. */
		String certificatePem() {
			return pem(this.certificate);
		}

		/** The private key in PEM (PKCS#8). */
		String privateKeyPem() {
			return pem("PRIVATE KEY", this.keys.getPrivate().getEncoded());
		}

	}

}
