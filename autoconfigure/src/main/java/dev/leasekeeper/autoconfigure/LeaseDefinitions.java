package dev.leasekeeper.autoconfigure;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Authentication;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Certificate;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Defaults;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Kubernetes;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.LeaseSettings;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.OnLost;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Vault;
import dev.leasekeeper.core.InvalidPolicyException;
import dev.leasekeeper.core.RenewalPolicy;
import dev.leasekeeper.tls.CertificateSource;
import dev.leasekeeper.vault.StaticCredentialSource;

/**
 * Resolves each lease's settings (its own, else {@code leasekeeper.defaults}) and
 * validates them, naming the property in its configuration form.
 *
 * @author Leasekeeper
 */
final class LeaseDefinitions {

	private static final Map<String, Function<LeaseSettings, @Nullable Object>> OWN = Map.of("renew-at",
			LeaseSettings::getRenewAt, "first-renewal-spread", LeaseSettings::getFirstRenewalSpread, "jitter",
			LeaseSettings::getJitter, "expiry-buffer", LeaseSettings::getExpiryBuffer, "attempt-timeout",
			LeaseSettings::getAttemptTimeout, "retry.initial-interval",
			(lease) -> lease.getRetry().getInitialInterval(), "retry.multiplier",
			(lease) -> lease.getRetry().getMultiplier(), "retry.max-interval",
			(lease) -> lease.getRetry().getMaxInterval(), "retry.jitter", (lease) -> lease.getRetry().getJitter());

	private LeaseDefinitions() {
	}

	/**
	 * Validate what no single lease can: names, paths, duplicates, timeouts.
	 */
	static void validate(LeasekeeperProperties properties) {
		requirePositive("leasekeeper.startup-timeout", properties.getStartupTimeout());
		requirePositive("leasekeeper.shutdown-timeout", properties.getShutdownTimeout());
		vault(properties.getVault());
		policy("leasekeeper.defaults", new LeaseSettings(), properties.getDefaults());
		policy("leasekeeper.token", properties.getToken(), properties.getDefaults());
		if (properties.getToken().getIncrement() != null) {
			requirePositive("leasekeeper.token.increment", properties.getToken().getIncrement());
		}
		Map<String, String> paths = new HashMap<>();
		String datasource = null;
		Map<String, String> beans = new HashMap<>();
		for (Map.Entry<String, Lease> entry : properties.getLeases().entrySet()) {
			String name = entry.getKey();
			String prefix = "leasekeeper.leases." + name;
			if (!name.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?")) {
				throw new InvalidLeasekeeperPropertyException(prefix, name,
						"a lease name must be lowercase letters, digits and dashes");
			}
			Lease lease = entry.getValue();
			String path = lease.getPath();
			if (path == null || path.isBlank()) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".path", (path != null) ? path : "",
						"must be the Vault path of the lease, such as database/creds/orders");
			}
			String normalized = path.strip().replaceAll("^/+|/+$", "");
			String other = paths.put(normalized, name);
			if (other != null) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".path", path,
						"already declared by leasekeeper.leases." + other
								+ ".path; a path may be declared once (one owner per lease)");
			}
			if (lease.getDatasource() != null && lease.getDatasource().isBlank()) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".datasource", lease.getDatasource(),
						"must be true (spring.datasource's pool), false, or the name of a HikariDataSource bean");
			}
			if (lease.feedsPrimaryDataSource()) {
				if (datasource != null) {
					throw new InvalidLeasekeeperPropertyException(prefix + ".datasource", "true",
							"only one lease may feed spring.datasource, and leasekeeper.leases." + datasource
									+ ".datasource is already true");
				}
				datasource = name;
			}
			String bean = lease.dataSourceBean();
			if (bean != null) {
				String owner = beans.put(bean, name);
				if (owner != null) {
					throw new InvalidLeasekeeperPropertyException(prefix + ".datasource", bean,
							"one pool takes its credential from one lease, and leasekeeper.leases." + owner
									+ ".datasource already names " + bean);
				}
			}
			if (lease.getIncrement() != null) {
				requirePositive(prefix + ".increment", lease.getIncrement());
			}
			if (lease.getRefreshSpread().isNegative()) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".refresh-spread",
						lease.getRefreshSpread().toString(), "must be zero or a positive duration");
			}
			if (lease.getKind() == LeasekeeperProperties.Kind.STATIC && !StaticCredentialSource.isStatic(path)) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".kind", "static",
						"is for a database static role's credential: the path must be <mount>/static-creds/<role>");
			}
			requireText(prefix + ".username-key", lease.getUsernameKey(),
					"must name the field of the secret that holds the username, such as username");
			requireText(prefix + ".password-key", lease.getPasswordKey(),
					"must name the field of the secret that holds the password, such as password");
			policy(prefix, lease, properties.getDefaults());
		}
		certificates(properties);
		String vaultBundle = properties.getVault().getSslBundle();
		if (vaultBundle != null && !properties.getCertificates().isEmpty()) {
			// Boot's SSL bundles are made once: the certificates' bundles need Vault,
			// and this Vault client would need the bundles
			throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.ssl-bundle", vaultBundle,
					"cannot be combined with leasekeeper.certificates yet: give Vault's CA to the JVM's trust store"
							+ " (javax.net.ssl.trustStore) instead, or issue the certificates without"
							+ " leasekeeper.vault.ssl-bundle");
		}
	}

	private static void certificates(LeasekeeperProperties properties) {
		Map<String, String> bundles = new HashMap<>();
		for (Map.Entry<String, Certificate> entry : properties.getCertificates().entrySet()) {
			String name = entry.getKey();
			String prefix = "leasekeeper.certificates." + name;
			if (!name.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?")) {
				throw new InvalidLeasekeeperPropertyException(prefix, name,
						"a certificate name must be lowercase letters, digits and dashes");
			}
			if (properties.getLeases().containsKey(name) || name.equals("vault-token")) {
				throw new InvalidLeasekeeperPropertyException(prefix, name,
						"a certificate's name is its lease's name in events, meters and the actuator: it must differ"
								+ " from every name under leasekeeper.leases and from vault-token");
			}
			Certificate certificate = entry.getValue();
			String path = certificate.getPath();
			if (CertificateSource.split(path) == null) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".path", (path != null) ? path : "",
						"must be the issuing path of a PKI role, <mount>/issue/<role>, such as pki/issue/web");
			}
			requireText(prefix + ".common-name", certificate.getCommonName(),
					"must be the certificate's common name, such as orders.example.com");
			for (String altName : certificate.getAltNames()) {
				if (altName == null || altName.isBlank()) {
					throw new InvalidLeasekeeperPropertyException(prefix + ".alt-names",
							String.join(",", certificate.getAltNames()),
							"must be DNS names separated by commas, such as api.example.com,www.example.com");
				}
			}
			for (String ip : certificate.getIpSans()) {
				if (ip == null || !ip.strip().matches("[0-9a-fA-F.:]+")) {
					throw new InvalidLeasekeeperPropertyException(prefix + ".ip-sans", (ip != null) ? ip : "",
							"must be IP addresses, such as 10.0.0.7 or ::1");
				}
			}
			if (certificate.getTtl() != null) {
				requirePositive(prefix + ".ttl", certificate.getTtl());
			}
			if (certificate.getIncrement() != null) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".increment",
						certificate.getIncrement().toString(),
						"a certificate is re-issued, never renewed: set its validity with " + prefix + ".ttl");
			}
			if (certificate.getSslBundle() != null && certificate.getSslBundle().isBlank()) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".ssl-bundle", certificate.getSslBundle(),
						"must name the SSL bundle the certificate feeds, such as web (server.ssl.bundle=web)");
			}
			String bundle = certificate.sslBundleOr(name);
			String other = bundles.put(bundle, name);
			if (other != null) {
				throw new InvalidLeasekeeperPropertyException(prefix + ".ssl-bundle", bundle,
						"already fed by leasekeeper.certificates." + other + "; an SSL bundle has one certificate");
			}
			policy(prefix, certificate, properties.getDefaults());
		}
	}

	/**
	 * Return the renewal policy of a lease: its own settings, else the defaults.
	 * @param prefix the lease's property prefix, such as
	 * {@code leasekeeper.leases.orders-db}
	 */
	static RenewalPolicy policy(String prefix, LeaseSettings lease, Defaults defaults) {
		try {
			return RenewalPolicy.builder()
				.renewAt(or(lease.getRenewAt(), defaults.getRenewAt()))
				.firstRenewalSpread(or(lease.getFirstRenewalSpread(), defaults.getFirstRenewalSpread()))
				.jitter(or(lease.getJitter(), defaults.getJitter()))
				.expiryBuffer(or(lease.getExpiryBuffer(), defaults.getExpiryBuffer()))
				.attemptTimeout(or(lease.getAttemptTimeout(), defaults.getAttemptTimeout()))
				.retryInitialInterval(
						or(lease.getRetry().getInitialInterval(), defaults.getRetry().getInitialInterval()))
				.retryMultiplier(or(lease.getRetry().getMultiplier(), defaults.getRetry().getMultiplier()))
				.retryMaxInterval(or(lease.getRetry().getMaxInterval(), defaults.getRetry().getMaxInterval()))
				.retryJitter(or(lease.getRetry().getJitter(), defaults.getRetry().getJitter()))
				.build();
		}
		catch (InvalidPolicyException ex) {
			Function<LeaseSettings, @Nullable Object> own = OWN.get(ex.getSetting());
			boolean setHere = own != null && own.apply(lease) != null;
			throw new InvalidLeasekeeperPropertyException(
					(setHere ? prefix : "leasekeeper.defaults") + "." + ex.getSetting(), ex.getValue(),
					ex.getAllowed());
		}
	}

	static boolean revokeOnShutdown(LeaseSettings lease, Defaults defaults) {
		return or(lease.getRevokeOnShutdown(), defaults.isRevokeOnShutdown());
	}

	static boolean revokeReplaced(LeaseSettings lease, Defaults defaults) {
		return or(lease.getRevokeReplaced(), defaults.isRevokeReplaced());
	}

	static OnLost onLost(LeaseSettings lease, Defaults defaults) {
		return or(lease.getOnLost(), defaults.getOnLost());
	}

	private static void vault(Vault vault) {
		requirePositive("leasekeeper.vault.connection-timeout", vault.getConnectionTimeout());
		URI uri = vault.getUri();
		String scheme = uri.getScheme();
		if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme)) || uri.getHost() == null) {
			throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.uri", uri.toString(),
					"must be an http or https address with a host, such as https://vault.example.com:8200");
		}
		if (vault.getAuthentication() == Authentication.APPROLE) {
			requireText("leasekeeper.vault.app-role.path", vault.getAppRole().getPath(),
					"must be the path the AppRole auth method is mounted at, such as approle");
		}
		if (vault.getAuthentication() == Authentication.USERPASS) {
			requireText("leasekeeper.vault.userpass.username", vault.getUserpass().getUsername(),
					"must be set when leasekeeper.vault.authentication is userpass");
			if (vault.getUserpass().getPassword() == null || vault.getUserpass().getPassword().isEmpty()) {
				// the value is a secret: never repeated
				throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.userpass.password", "",
						"must be set when leasekeeper.vault.authentication is userpass");
			}
			requireText("leasekeeper.vault.userpass.path", vault.getUserpass().getPath(),
					"must be the path the userpass auth method is mounted at, such as userpass");
		}
		if (vault.getSslBundle() != null && vault.getSslBundle().isBlank()) {
			throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.ssl-bundle", vault.getSslBundle(),
					"must name an SSL bundle declared under spring.ssl.bundle, or be left unset");
		}
		if (vault.getAuthentication() == Authentication.CERT) {
			requireText("leasekeeper.vault.ssl-bundle", vault.getSslBundle(),
					"must name the SSL bundle holding the client certificate when leasekeeper.vault.authentication"
							+ " is cert");
			requireText("leasekeeper.vault.cert.path", vault.getCert().getPath(),
					"must be the path the cert auth method is mounted at, such as cert");
			if (!"https".equalsIgnoreCase(vault.getUri().getScheme())) {
				throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.uri", vault.getUri().toString(),
						"must be an https address when leasekeeper.vault.authentication is cert");
			}
		}
		if (vault.getAuthentication() == Authentication.CUBBYHOLE) {
			String wrapped = vault.getCubbyhole().getWrappedToken();
			if (wrapped == null || wrapped.isBlank()) {
				// the value is a secret: never repeated
				throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.cubbyhole.wrapped-token", "",
						"must be set when leasekeeper.vault.authentication is cubbyhole: the wrapping token"
								+ " (vault token create -wrap-ttl=...)");
			}
		}
		if (vault.getAuthentication() == Authentication.GITHUB) {
			String token = vault.getGithub().getToken();
			if (token == null || token.isBlank()) {
				// the value is a secret: never repeated
				throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.github.token", "",
						"must be set when leasekeeper.vault.authentication is github: a personal access token");
			}
			requireText("leasekeeper.vault.github.path", vault.getGithub().getPath(),
					"must be the path the GitHub auth method is mounted at, such as github");
		}
		if (vault.getAuthentication() == Authentication.JWT) {
			LeasekeeperProperties.Jwt jwt = vault.getJwt();
			requireText("leasekeeper.vault.jwt.role", jwt.getRole(),
					"must be set when leasekeeper.vault.authentication is jwt: the Vault role to log in as");
			requireText("leasekeeper.vault.jwt.path", jwt.getPath(),
					"must be the path the JWT auth method is mounted at, such as jwt");
			boolean hasToken = jwt.getToken() != null && !jwt.getToken().isBlank();
			if (jwt.getTokenFile() == null && !hasToken) {
				// the token is a secret: never repeated
				throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.jwt.token-file", "",
						"must be set when leasekeeper.vault.authentication is jwt (or leasekeeper.vault.jwt.token):"
								+ " the file your identity provider writes the workload's JWT to");
			}
			if (jwt.getTokenFile() != null && hasToken) {
				throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.jwt.token-file",
						jwt.getTokenFile().toString(), "set either token-file or token, not both");
			}
			Path file = jwt.getTokenFile();
			if (file != null && (!Files.isRegularFile(file) || !Files.isReadable(file))) {
				throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.jwt.token-file", file.toString(),
						"must name a readable file holding the JWT");
			}
		}
		if (vault.getAuthentication() == Authentication.KUBERNETES) {
			Kubernetes kubernetes = vault.getKubernetes();
			requireText("leasekeeper.vault.kubernetes.role", kubernetes.getRole(),
					"must be set when leasekeeper.vault.authentication is kubernetes: the Vault role to log in as");
			requireText("leasekeeper.vault.kubernetes.path", kubernetes.getPath(),
					"must be the path the Kubernetes auth method is mounted at, such as kubernetes");
			Path file = kubernetes.getServiceAccountTokenFile();
			if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
				throw new InvalidLeasekeeperPropertyException("leasekeeper.vault.kubernetes.service-account-token-file",
						file.toString(), "must name a readable file: the pod's service account token, mounted by"
								+ " Kubernetes at /var/run/secrets/kubernetes.io/serviceaccount/token");
			}
		}
	}

	private static void requireText(String property, @Nullable String value, String allowed) {
		if (value == null || value.isBlank()) {
			throw new InvalidLeasekeeperPropertyException(property, (value != null) ? value : "", allowed);
		}
	}

	private static void requirePositive(String property, Duration value) {
		if (value.isNegative() || value.isZero()) {
			throw new InvalidLeasekeeperPropertyException(property, value.toString(), "must be a positive duration");
		}
	}

	private static <T> T or(@Nullable T own, T fallback) {
		return (own != null) ? own : fallback;
	}

}
