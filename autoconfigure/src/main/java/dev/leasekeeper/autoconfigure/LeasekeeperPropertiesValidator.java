package dev.leasekeeper.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Authentication;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Certificate;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Fleet;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Jwt;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Kind;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.LeaseSettings;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Sharing;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Vault;
import dev.leasekeeper.core.InvalidPolicyException;
import dev.leasekeeper.fleet.GroupStore;
import dev.leasekeeper.tls.CertificateSource;
import dev.leasekeeper.vault.StaticCredentialSource;

import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginProvider;
import org.springframework.boot.validation.MessageInterpolatorFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.validation.BindingResult;
import org.springframework.validation.Errors;
import org.springframework.validation.FieldError;

/**
 * Checks the bound {@code leasekeeper.*} properties for Spring Boot's binder: first every
 * value against the Jakarta constraints of its field, then the rules that span several
 * properties (a lease's settings with the defaults, paths declared twice, what each login
 * method needs).
 * <p>
 * Each failure is a {@link FieldError} in the property's configuration form that carries
 * the origin of the value (file and line, or environment variable), so that Boot's
 * {@code BindValidationFailureAnalyzer} reports property, value and origin. Boot finds an
 * origin by itself only for a field of the object it validates, never for a nested one,
 * so the origin is looked up here in the environment the value was bound from. Secret
 * values are never repeated: a failure on one reports it as empty.
 *
 * @author Leasekeeper
 */
final class LeasekeeperPropertiesValidator {

	private static final String NAME = "[a-z0-9]([a-z0-9-]*[a-z0-9])?";

	private final LeasekeeperProperties properties;

	private final @Nullable Environment environment;

	private final Errors errors;

	LeasekeeperPropertiesValidator(LeasekeeperProperties properties, @Nullable Environment environment, Errors errors) {
		this.properties = properties;
		this.environment = environment;
		this.errors = errors;
	}

	void validate() {
		Set<ConstraintViolation<LeasekeeperProperties>> violations = Constraints.VALIDATOR.validate(this.properties);
		for (ConstraintViolation<LeasekeeperProperties> violation : violations) {
			reject(property(violation.getPropertyPath()), violation.getInvalidValue(), violation.getMessage());
		}
		if (!violations.isEmpty()) {
			// the rules below combine values that each must be valid first
			return;
		}
		vault(this.properties.getVault());
		policy("leasekeeper.defaults", this.properties.getDefaults());
		policy("leasekeeper.token", this.properties.getToken());
		leases();
		certificates();
		String vaultBundle = this.properties.getVault().getSslBundle();
		if (vaultBundle != null && !this.properties.getCertificates().isEmpty()) {
			// Boot's SSL bundles are made once: the certificates' bundles need Vault,
			// and this Vault client would need the bundles
			reject("leasekeeper.vault.ssl-bundle", vaultBundle,
					"cannot be combined with leasekeeper.certificates yet: give Vault's CA to the JVM's trust store"
							+ " (javax.net.ssl.trustStore) instead, or issue the certificates without"
							+ " leasekeeper.vault.ssl-bundle");
		}
	}

	/* ---- Leases and certificates ---- */

	private void leases() {
		Map<String, List<String>> paths = new LinkedHashMap<>();
		Map<String, List<String>> pools = new LinkedHashMap<>();
		String grouped = null;
		for (Map.Entry<String, Lease> entry : this.properties.getLeases().entrySet()) {
			String name = entry.getKey();
			String prefix = "leasekeeper.leases." + name;
			Lease lease = entry.getValue();
			if (!name.matches(NAME)) {
				rejectEntry(prefix, name, "a lease name must be lowercase letters, digits and dashes");
			}
			String path = lease.getPath();
			paths.computeIfAbsent(path.strip().replaceAll("^/+|/+$", ""), (key) -> new ArrayList<>()).add(name);
			if (lease.getDatasource() != null && lease.getDatasource().isBlank()) {
				reject(prefix + ".datasource", lease.getDatasource(),
						"must be true (spring.datasource's pool), false, or the name of a HikariDataSource bean");
			}
			String pool = lease.feedsPrimaryDataSource() ? "spring.datasource" : lease.dataSourceBean();
			if (pool != null) {
				pools.computeIfAbsent(pool, (key) -> new ArrayList<>()).add(name);
			}
			if (lease.getKind() == Kind.STATIC && !StaticCredentialSource.isStatic(path)) {
				reject(prefix + ".kind", "static",
						"is for a database static role's credential: the path must be <mount>/static-creds/<role>");
			}
			if (lease.getMaxTtl() != null && lease.isStatic()) {
				reject(prefix + ".max-ttl", lease.getMaxTtl(),
						"is for dynamic leases: a static role's credential has no max TTL");
			}
			if (lease.getSharing() == Sharing.GROUP) {
				group(prefix, lease);
				grouped = (grouped != null) ? grouped : prefix;
			}
			policy(prefix, lease);
		}
		if (grouped != null) {
			fleet(grouped);
		}
		if (GroupStore.split(this.properties.getFleet().getKvPath()) == null) {
			reject("leasekeeper.fleet.kv-path", this.properties.getFleet().getKvPath(),
					"must be a KV version 2 data path, <mount>/data/<prefix>, such as secret/data/leasekeeper");
		}
		// a clash is reported on each property involved: each has its own origin
		shared(paths, "leasekeeper.leases.", ".path", (lease) -> this.properties.getLeases().get(lease).getPath(),
				"a path may be declared once (one owner per lease), and it is also declared by ");
		shared(pools, "leasekeeper.leases.", ".datasource",
				(lease) -> this.properties.getLeases().get(lease).getDatasource(),
				"one pool takes its credential from one lease, and this one is also named by ");
	}

	/** What a lease with sharing: group needs. */
	private void group(String prefix, Lease lease) {
		if (lease.isStatic()) {
			reject(prefix + ".sharing", "group",
					"is for dynamic leases: every instance reads a static role's credential already");
			return;
		}
		if (!ClassUtils.isPresent("org.springframework.integration.support.leader.LockRegistryLeaderInitiator",
				getClass().getClassLoader())) {
			reject(prefix + ".sharing", "group",
					"needs Spring Integration on the classpath (spring-boot-starter-integration): its leader election"
							+ " picks the instance that keeps the group's grant");
		}
	}

	/** What the fleet needs once a lease is shared by a group. */
	private void fleet(String prefix) {
		Fleet fleet = this.properties.getFleet();
		String lockLease = fleet.getLock().getLease();
		if (lockLease != null) {
			Lease lease = this.properties.getLeases().get(lockLease.strip());
			if (lease == null || lease.getSharing() == Sharing.GROUP) {
				reject("leasekeeper.fleet.lock.lease", lockLease,
						"must name a lease declared under leasekeeper.leases with sharing: instance (the election"
								+ " cannot run on a grant it elects a leader for)");
			}
			else if (fleet.getLock().getUsername() != null) {
				reject("leasekeeper.fleet.lock.username", fleet.getLock().getUsername(),
						"set either leasekeeper.fleet.lock.lease or a username and password, not both");
			}
		}
		if (fleet.getTokenRole() == null) {
			reject("leasekeeper.fleet.token-role", "",
					"must name the Vault token role of the group token (orphan, periodic) when " + prefix
							+ ".sharing is group");
		}
		if (fleet.getGroup() == null && (this.environment == null
				|| !StringUtils.hasText(this.environment.getProperty("spring.application.name")))) {
			reject("leasekeeper.fleet.group", "",
					"must name the group (or set spring.application.name) when " + prefix + ".sharing is group");
		}
	}

	private void shared(Map<String, List<String>> owners, String prefix, String suffix,
			Function<String, @Nullable String> value, String allowed) {
		for (List<String> names : owners.values()) {
			if (names.size() > 1) {
				for (String name : names) {
					List<String> others = names.stream()
						.filter((other) -> !other.equals(name))
						.map((other) -> prefix + other + suffix)
						.toList();
					reject(prefix + name + suffix, value.apply(name), allowed + String.join(", ", others));
				}
			}
		}
	}

	private void certificates() {
		Map<String, List<String>> bundles = new LinkedHashMap<>();
		for (Map.Entry<String, Certificate> entry : this.properties.getCertificates().entrySet()) {
			String name = entry.getKey();
			String prefix = "leasekeeper.certificates." + name;
			Certificate certificate = entry.getValue();
			if (!name.matches(NAME)) {
				rejectEntry(prefix, name, "a certificate name must be lowercase letters, digits and dashes");
			}
			if (this.properties.getLeases().containsKey(name) || name.equals("vault-token")) {
				rejectEntry(prefix, name, "a certificate's name is its lease's name in events, meters and the"
						+ " actuator: it must differ from every name under leasekeeper.leases and from vault-token");
			}
			if (CertificateSource.split(certificate.getPath()) == null) {
				reject(prefix + ".path", certificate.getPath(),
						"must be the issuing path of a PKI role, <mount>/issue/<role>, such as pki/issue/web");
			}
			List<String> altNames = certificate.getAltNames();
			if (altNames.stream().anyMatch((altName) -> altName == null || altName.isBlank())) {
				reject(prefix + ".alt-names", String.join(",", altNames),
						"must be DNS names separated by commas, such as api.example.com,www.example.com");
			}
			for (String ip : certificate.getIpSans()) {
				if (ip == null || !ip.strip().matches("[0-9a-fA-F.:]+")) {
					reject(prefix + ".ip-sans", ip, "must be IP addresses, such as 10.0.0.7 or ::1");
				}
			}
			bundles.computeIfAbsent(certificate.sslBundleOr(name), (key) -> new ArrayList<>()).add(name);
			policy(prefix, certificate);
		}
		shared(bundles, "leasekeeper.certificates.", ".ssl-bundle",
				(certificate) -> this.properties.getCertificates().get(certificate).sslBundleOr(certificate),
				"an SSL bundle has one certificate, and this one is also fed by ");
	}

	/**
	 * Check that the settings, with the defaults for what they leave unset, make a
	 * renewal policy; a failure names the setting where it was set.
	 */
	private void policy(String prefix, LeaseSettings settings) {
		try {
			settings.policy(this.properties.getDefaults());
		}
		catch (InvalidPolicyException ex) {
			boolean setHere = new BeanWrapperImpl(settings).getPropertyValue(toCamelCase(ex.getSetting())) != null;
			reject((setHere ? prefix : "leasekeeper.defaults") + "." + ex.getSetting(), ex.getValue(), ex.getAllowed());
		}
	}

	/* ---- Vault ---- */

	private void vault(Vault vault) {
		String scheme = vault.getUri().getScheme();
		if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
				|| vault.getUri().getHost() == null) {
			reject("leasekeeper.vault.uri", vault.getUri(),
					"must be an http or https address with a host, such as https://vault.example.com:8200");
		}
		Authentication authentication = vault.getAuthentication();
		String when = "must be set when leasekeeper.vault.authentication is " + authentication.name().toLowerCase();
		switch (authentication) {
			case TOKEN -> {
				// unset is allowed here: the application may bring its own
				// VaultOperations
				if (vault.getToken() != null && vault.getToken().isBlank()) {
					rejectSecret("leasekeeper.vault.token", when);
				}
			}
			case APPROLE -> {
				if (vault.getAppRole().getRoleId() != null && vault.getAppRole().getRoleId().isBlank()) {
					rejectSecret("leasekeeper.vault.app-role.role-id", when);
				}
				mountPath("leasekeeper.vault.app-role.path", vault.getAppRole().getPath(), "AppRole", "approle");
			}
			case USERPASS -> {
				requireText("leasekeeper.vault.userpass.username", vault.getUserpass().getUsername(), when);
				if (vault.getUserpass().getPassword() == null || vault.getUserpass().getPassword().isEmpty()) {
					rejectSecret("leasekeeper.vault.userpass.password", when);
				}
				mountPath("leasekeeper.vault.userpass.path", vault.getUserpass().getPath(), "userpass", "userpass");
			}
			case CERT -> {
				requireText("leasekeeper.vault.ssl-bundle", vault.getSslBundle(),
						"must name the SSL bundle holding the client certificate when"
								+ " leasekeeper.vault.authentication is cert");
				mountPath("leasekeeper.vault.cert.path", vault.getCert().getPath(), "cert", "cert");
				if (!"https".equalsIgnoreCase(scheme)) {
					reject("leasekeeper.vault.uri", vault.getUri(),
							"must be an https address when leasekeeper.vault.authentication is cert");
				}
			}
			case CUBBYHOLE -> {
				if (isBlank(vault.getCubbyhole().getWrappedToken())) {
					rejectSecret("leasekeeper.vault.cubbyhole.wrapped-token",
							when + ": the wrapping token (vault token create -wrap-ttl=...)");
				}
			}
			case GITHUB -> {
				if (isBlank(vault.getGithub().getToken())) {
					rejectSecret("leasekeeper.vault.github.token", when + ": a personal access token");
				}
				mountPath("leasekeeper.vault.github.path", vault.getGithub().getPath(), "GitHub", "github");
			}
			case JWT -> jwt(vault.getJwt(), when);
			case KUBERNETES -> {
				requireText("leasekeeper.vault.kubernetes.role", vault.getKubernetes().getRole(),
						when + ": the Vault role to log in as");
				mountPath("leasekeeper.vault.kubernetes.path", vault.getKubernetes().getPath(), "Kubernetes",
						"kubernetes");
				Path file = vault.getKubernetes().getServiceAccountTokenFile();
				if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
					reject("leasekeeper.vault.kubernetes.service-account-token-file", file,
							"must name a readable file: the pod's service account token, mounted by Kubernetes at"
									+ " /var/run/secrets/kubernetes.io/serviceaccount/token");
				}
			}
		}
	}

	private void jwt(Jwt jwt, String when) {
		requireText("leasekeeper.vault.jwt.role", jwt.getRole(), when + ": the Vault role to log in as");
		mountPath("leasekeeper.vault.jwt.path", jwt.getPath(), "JWT", "jwt");
		Path file = jwt.getTokenFile();
		if (file == null && isBlank(jwt.getToken())) {
			// the token is a secret: never repeated
			rejectSecret((jwt.getToken() != null) ? "leasekeeper.vault.jwt.token" : "leasekeeper.vault.jwt.token-file",
					"leasekeeper.vault.jwt.token-file (or leasekeeper.vault.jwt.token) " + when
							+ ": the file your identity provider writes the workload's JWT to");
		}
		else if (file != null && !isBlank(jwt.getToken())) {
			reject("leasekeeper.vault.jwt.token-file", file, "set either token-file or token, not both");
		}
		else if (file != null && (!Files.isRegularFile(file) || !Files.isReadable(file))) {
			reject("leasekeeper.vault.jwt.token-file", file, "must name a readable file holding the JWT");
		}
	}

	private void mountPath(String property, @Nullable String path, String method, String example) {
		requireText(property, path,
				"must be the path the " + method + " auth method is mounted at, such as " + example);
	}

	/* ---- Reporting ---- */

	private void requireText(String property, @Nullable String value, String allowed) {
		if (isBlank(value)) {
			reject(property, (value != null) ? value : "", allowed);
		}
	}

	private void rejectSecret(String property, String allowed) {
		reject(property, "", allowed);
	}

	/**
	 * Reject a map entry (its name): its origin is that of the first property under it.
	 */
	private void rejectEntry(String prefix, String name, String allowed) {
		Origin origin = origin(prefix);
		if (origin == null) {
			origin = origin(prefix + ".path");
		}
		add(prefix, name, allowed, origin);
	}

	private void reject(String property, @Nullable Object value, String allowed) {
		add(property, value, allowed, origin(property));
	}

	private void add(String property, @Nullable Object value, String allowed, @Nullable Origin origin) {
		String objectName = this.errors.getObjectName();
		String field = property.startsWith(objectName + ".") ? property.substring(objectName.length() + 1) : property;
		if (this.errors instanceof BindingResult result) {
			result.addError(new PropertyError(objectName, field, value, allowed, origin));
		}
		else {
			this.errors.reject("invalid", property + ": " + allowed);
		}
	}

	private @Nullable Origin origin(String property) {
		if (this.environment == null) {
			return null;
		}
		ConfigurationPropertyName name = ConfigurationPropertyName.adapt(property, '.');
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			ConfigurationProperty bound = source.getConfigurationProperty(name);
			if (bound != null) {
				return bound.getOrigin();
			}
		}
		return null;
	}

	/**
	 * Return a constraint violation's property in its configuration form:
	 * {@code leases[orders-db].renewAt} is {@code leasekeeper.leases.orders-db.renew-at}.
	 */
	private static String property(jakarta.validation.Path path) {
		StringBuilder property = new StringBuilder("leasekeeper");
		for (jakarta.validation.Path.Node node : path) {
			if (node.isInIterable() && node.getKey() != null) {
				property.append('.').append(node.getKey());
			}
			if (node.getKind() == jakarta.validation.ElementKind.PROPERTY) {
				property.append('.').append(DataObjectPropertyName.toDashedForm(node.getName()));
			}
		}
		return property.toString();
	}

	private static String toCamelCase(String dashed) {
		StringBuilder camel = new StringBuilder(dashed.length());
		boolean upper = false;
		for (char c : dashed.toCharArray()) {
			if (c == '-') {
				upper = true;
			}
			else {
				camel.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return camel.toString();
	}

	private static boolean isBlank(@Nullable String value) {
		return value == null || value.isBlank();
	}

	/**
	 * A failure on one property, with the origin of its value.
	 */
	static final class PropertyError extends FieldError implements OriginProvider {

		private final transient @Nullable Origin origin;

		PropertyError(String objectName, String field, @Nullable Object value, String message,
				@Nullable Origin origin) {
			super(objectName, field, value, false, null, null, message);
			this.origin = origin;
		}

		@Override
		public @Nullable Origin getOrigin() {
			return this.origin;
		}

	}

	/**
	 * The Jakarta validator, made once: building one takes a while.
	 */
	private static final class Constraints {

		static final jakarta.validation.Validator VALIDATOR = Validation.byDefaultProvider()
			.configure()
			.messageInterpolator(new MessageInterpolatorFactory().getObject())
			.buildValidatorFactory()
			.getValidator();

	}

}
