package dev.leasekeeper.autoconfigure;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import org.hibernate.validator.constraints.time.DurationMin;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.CeilingAction;
import dev.leasekeeper.core.RenewalPolicy;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.core.env.Environment;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties for Leasekeeper.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@ConfigurationProperties("leasekeeper")
public class LeasekeeperProperties implements Validator {

	static final String POSITIVE = "must be a positive duration";

	static final String NOT_NEGATIVE = "must be zero or a positive duration";

	static final String RENEW_AT = "must be greater than 0 and less than 1";

	static final String NOT_BLANK_IF_SET = ".*\\S.*";

	/**
	 * Whether Leasekeeper manages the declared leases.
	 */
	private boolean enabled = true;

	/**
	 * Whether start-up fails when a lease cannot be obtained within the start-up timeout.
	 */
	private boolean failFast = true;

	/**
	 * How long start-up waits for each lease's first grant.
	 */
	@DurationMin(nanos = 1, message = POSITIVE)
	private Duration startupTimeout = Duration.ofSeconds(30);

	/**
	 * How long shutdown waits for the revocation of the secret leases, then of the token.
	 */
	@DurationMin(nanos = 1, message = POSITIVE)
	private Duration shutdownTimeout = Duration.ofSeconds(10);

	/**
	 * Connection to Vault, used only when the application has no VaultOperations bean of
	 * its own.
	 */
	@Valid
	private final Vault vault = new Vault();

	/**
	 * Renewal of the Vault login token; every setting left unset is inherited from
	 * leasekeeper.defaults.
	 */
	@Valid
	@NestedConfigurationProperty
	private final Token token = new Token();

	/**
	 * Settings every lease inherits unless it sets its own.
	 */
	@Valid
	@NestedConfigurationProperty
	private final LeaseSettings defaults = new LeaseSettings();

	/**
	 * Threads of the calls to Vault (renewals, acquisitions, revocations) and of the
	 * consumers' work on a new credential.
	 */
	@Valid
	private final Io io = new Io();

	/**
	 * Leases to keep alive, by name. The name is used in bean names, metric tags and
	 * events.
	 */
	private Map<String, @Valid Lease> leases = new LinkedHashMap<>();

	/**
	 * Certificates to issue from Vault's PKI secrets engine and keep re-issuing, by name;
	 * each feeds a Spring Boot SSL bundle.
	 */
	private Map<String, @Valid Certificate> certificates = new LinkedHashMap<>();

	/**
	 * Fleet scope: how the instances of a group share the grants of the leases declared
	 * with sharing: group.
	 */
	@Valid
	private final Fleet fleet = new Fleet();

	/**
	 * Where the bound values came from, for the failure report; absent outside an
	 * application context.
	 */
	private final @Nullable Environment environment;

	/**
	 * Create properties with their defaults.
	 */
	public LeasekeeperProperties() {
		this(null);
	}

	LeasekeeperProperties(@Nullable Environment environment) {
		this.environment = environment;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isFailFast() {
		return this.failFast;
	}

	public void setFailFast(boolean failFast) {
		this.failFast = failFast;
	}

	public Duration getStartupTimeout() {
		return this.startupTimeout;
	}

	public void setStartupTimeout(Duration startupTimeout) {
		this.startupTimeout = startupTimeout;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public Vault getVault() {
		return this.vault;
	}

	public Token getToken() {
		return this.token;
	}

	public LeaseSettings getDefaults() {
		return this.defaults;
	}

	public Io getIo() {
		return this.io;
	}

	public Fleet getFleet() {
		return this.fleet;
	}

	public Map<String, Lease> getLeases() {
		return this.leases;
	}

	public void setLeases(Map<String, Lease> leases) {
		this.leases = leases;
	}

	public Map<String, Certificate> getCertificates() {
		return this.certificates;
	}

	public void setCertificates(Map<String, Certificate> certificates) {
		this.certificates = certificates;
	}

	/**
	 * Return the renewal policy of leasekeeper.defaults: what a lease that sets nothing
	 * of its own is renewed with.
	 * @return the policy
	 */
	public RenewalPolicy defaultPolicy() {
		return this.defaults.policy(this.defaults);
	}

	@Override
	public boolean supports(Class<?> type) {
		return LeasekeeperProperties.class.equals(type);
	}

	/**
	 * Validate the bound properties once Spring Boot has bound them all: each value
	 * against its constraints, then the rules that span several properties. Every failure
	 * names the property in its configuration form, its value and its origin.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		new LeasekeeperPropertiesValidator((LeasekeeperProperties) target, this.environment, errors).validate();
	}

	/**
	 * How a lease is renewed: the type of leasekeeper.defaults, and of each lease's, each
	 * certificate's and the token's own settings. A setting a lease leaves unset is the
	 * default's; one the defaults leave unset is the engine's.
	 */
	public static class LeaseSettings {

		/**
		 * Fraction of the granted window at which a grant is renewed, greater than 0 and
		 * less than 1.
		 */
		@DecimalMin(value = "0", inclusive = false, message = RENEW_AT)
		@DecimalMax(value = "1", inclusive = false, message = RENEW_AT)
		private @Nullable Double renewAt;

		/**
		 * How far before renew-at the first renewal of each grant may be drawn, as a
		 * fraction of renew-at (0 to 1); spreads a fleet that obtained its grants
		 * together.
		 */
		@DecimalMin(value = "0", message = "must be between 0 and 1")
		@DecimalMax(value = "1", message = "must be between 0 and 1")
		private @Nullable Double firstRenewalSpread;

		/**
		 * Fraction of the window by which later renewals are drawn early, 0 to 0.5.
		 */
		@DecimalMin(value = "0", message = "must be between 0 and 0.5")
		@DecimalMax(value = "0.5", message = "must be between 0 and 0.5")
		private @Nullable Double jitter;

		/**
		 * Time before the expiry at which the lease is treated as gone.
		 */
		@DurationMin(nanos = 0, message = NOT_NEGATIVE)
		private @Nullable Duration expiryBuffer;

		/**
		 * Longest a single call to Vault may take; never longer than the time left.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private @Nullable Duration attemptTimeout;

		/**
		 * Backoff between failed attempts.
		 */
		@Valid
		private final Retry retry = new Retry();

		/**
		 * Whether the lease is revoked when the application shuts down.
		 */
		private @Nullable Boolean revokeOnShutdown;

		/**
		 * Whether a replaced grant is revoked once its consumers have drained (one
		 * replaced at its ceiling at an instant drawn over its remaining life).
		 */
		private @Nullable Boolean revokeReplaced;

		/**
		 * What to do when the lease is lost: obtain a new one, or exit the process.
		 */
		private @Nullable OnLost onLost;

		public @Nullable Double getRenewAt() {
			return this.renewAt;
		}

		public void setRenewAt(@Nullable Double renewAt) {
			this.renewAt = renewAt;
		}

		public @Nullable Double getFirstRenewalSpread() {
			return this.firstRenewalSpread;
		}

		public void setFirstRenewalSpread(@Nullable Double firstRenewalSpread) {
			this.firstRenewalSpread = firstRenewalSpread;
		}

		public @Nullable Double getJitter() {
			return this.jitter;
		}

		public void setJitter(@Nullable Double jitter) {
			this.jitter = jitter;
		}

		public @Nullable Duration getExpiryBuffer() {
			return this.expiryBuffer;
		}

		public void setExpiryBuffer(@Nullable Duration expiryBuffer) {
			this.expiryBuffer = expiryBuffer;
		}

		public @Nullable Duration getAttemptTimeout() {
			return this.attemptTimeout;
		}

		public void setAttemptTimeout(@Nullable Duration attemptTimeout) {
			this.attemptTimeout = attemptTimeout;
		}

		public Retry getRetry() {
			return this.retry;
		}

		public @Nullable Boolean getRevokeOnShutdown() {
			return this.revokeOnShutdown;
		}

		public void setRevokeOnShutdown(@Nullable Boolean revokeOnShutdown) {
			this.revokeOnShutdown = revokeOnShutdown;
		}

		public @Nullable Boolean getRevokeReplaced() {
			return this.revokeReplaced;
		}

		public void setRevokeReplaced(@Nullable Boolean revokeReplaced) {
			this.revokeReplaced = revokeReplaced;
		}

		public @Nullable OnLost getOnLost() {
			return this.onLost;
		}

		public void setOnLost(@Nullable OnLost onLost) {
			this.onLost = onLost;
		}

		/**
		 * Return the renewal policy of these settings: each one set here, else the
		 * default's, else the engine's.
		 * @param defaults the settings of leasekeeper.defaults
		 * @return the policy
		 * @throws dev.leasekeeper.core.InvalidPolicyException if the settings together
		 * are not allowed
		 */
		public RenewalPolicy policy(LeaseSettings defaults) {
			RenewalPolicy.Builder builder = RenewalPolicy.builder();
			PropertyMapper map = PropertyMapper.get();
			map.from(this.renewAt).orFrom(defaults::getRenewAt).to(builder::renewAt);
			map.from(this.firstRenewalSpread).orFrom(defaults::getFirstRenewalSpread).to(builder::firstRenewalSpread);
			map.from(this.jitter).orFrom(defaults::getJitter).to(builder::jitter);
			map.from(this.expiryBuffer).orFrom(defaults::getExpiryBuffer).to(builder::expiryBuffer);
			map.from(this.attemptTimeout).orFrom(defaults::getAttemptTimeout).to(builder::attemptTimeout);
			Retry retry = defaults.getRetry();
			map.from(this.retry.initialInterval).orFrom(retry::getInitialInterval).to(builder::retryInitialInterval);
			map.from(this.retry.multiplier).orFrom(retry::getMultiplier).to(builder::retryMultiplier);
			map.from(this.retry.maxInterval).orFrom(retry::getMaxInterval).to(builder::retryMaxInterval);
			map.from(this.retry.jitter).orFrom(retry::getJitter).to(builder::retryJitter);
			return builder.build();
		}

		/**
		 * Return whether the lease is revoked on shutdown: set here, else the default's
		 * (true).
		 * @param defaults the settings of leasekeeper.defaults
		 * @return whether it is
		 */
		public boolean revokeOnShutdown(LeaseSettings defaults) {
			return or(this.revokeOnShutdown, defaults.revokeOnShutdown, true);
		}

		/**
		 * Return whether a replaced grant is revoked: set here, else the default's
		 * (true).
		 * @param defaults the settings of leasekeeper.defaults
		 * @return whether it is
		 */
		public boolean revokeReplaced(LeaseSettings defaults) {
			return or(this.revokeReplaced, defaults.revokeReplaced, true);
		}

		/**
		 * Return what is done when the lease is lost: set here, else the default's
		 * (reacquire).
		 * @param defaults the settings of leasekeeper.defaults
		 * @return the action
		 */
		public OnLost onLost(LeaseSettings defaults) {
			return or(this.onLost, defaults.onLost, OnLost.REACQUIRE);
		}

		private static <T> T or(@Nullable T own, @Nullable T inherited, T fallback) {
			return (own != null) ? own : (inherited != null) ? inherited : fallback;
		}

	}

	/**
	 * Backoff between failed attempts; every setting left unset is inherited.
	 */
	public static class Retry {

		/**
		 * First delay after a failed attempt.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private @Nullable Duration initialInterval;

		/**
		 * Factor applied to the delay after each failed attempt, 1 to 100.
		 */
		@DecimalMin(value = "1", message = "must be between 1 and 100")
		@DecimalMax(value = "100", message = "must be between 1 and 100")
		private @Nullable Double multiplier;

		/**
		 * Longest delay between failed attempts.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private @Nullable Duration maxInterval;

		/**
		 * Fraction by which each delay is randomly shortened or lengthened, at least 0
		 * and less than 1.
		 */
		@DecimalMin(value = "0", message = "must be at least 0 and less than 1")
		@DecimalMax(value = "1", inclusive = false, message = "must be at least 0 and less than 1")
		private @Nullable Double jitter;

		public @Nullable Duration getInitialInterval() {
			return this.initialInterval;
		}

		public void setInitialInterval(@Nullable Duration initialInterval) {
			this.initialInterval = initialInterval;
		}

		public @Nullable Double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(@Nullable Double multiplier) {
			this.multiplier = multiplier;
		}

		public @Nullable Duration getMaxInterval() {
			return this.maxInterval;
		}

		public void setMaxInterval(@Nullable Duration maxInterval) {
			this.maxInterval = maxInterval;
		}

		public @Nullable Double getJitter() {
			return this.jitter;
		}

		public void setJitter(@Nullable Double jitter) {
			this.jitter = jitter;
		}

	}

	/**
	 * The login token's renewal settings.
	 */
	public static class Token extends LeaseSettings {

		/**
		 * TTL to ask for at each renewal of the token; by default the TTL Vault applies.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private @Nullable Duration increment;

		public @Nullable Duration getIncrement() {
			return this.increment;
		}

		public void setIncrement(@Nullable Duration increment) {
			this.increment = increment;
		}

	}

	/**
	 * A declared lease.
	 */
	public static class Lease extends LeaseSettings {

		/**
		 * Vault path to read the lease from, such as database/creds/orders.
		 */
		@NotBlank(message = "must be the Vault path of the lease, such as database/creds/orders")
		private @Nullable String path;

		/**
		 * TTL to ask for at each renewal; by default the TTL Vault applies (the role's
		 * default TTL).
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private @Nullable Duration increment;

		/**
		 * The role's max TTL, when known: the first generation's ceiling is then
		 * predicted too, and it rotates in the slot of its last full renewal instead of
		 * at the renewal that comes back capped; by default learnt from that first capped
		 * renewal.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private @Nullable Duration maxTtl;

		/**
		 * What to do when the lease reaches its max TTL.
		 */
		private CeilingAction onCeiling = CeilingAction.ROTATE;

		public @Nullable Duration getMaxTtl() {
			return this.maxTtl;
		}

		public void setMaxTtl(@Nullable Duration maxTtl) {
			this.maxTtl = maxTtl;
		}

		/**
		 * Which pool the lease supplies with its username and password: true for
		 * spring.datasource's, or the name of a HikariDataSource bean the application
		 * defines.
		 */
		private @Nullable String datasource;

		/**
		 * Kind of credential: dynamic (a lease) or static (a database static role's
		 * credential, read again after each rotation); default: static for a
		 * .../static-creds/... path.
		 */
		private @Nullable Kind kind;

		/**
		 * Who holds the lease's grant: instance (each instance its own), or group (one
		 * grant for every instance of leasekeeper.fleet.group, kept by an elected leader
		 * and published through Vault's KV engine; needs Spring Integration).
		 */
		private Sharing sharing = Sharing.INSTANCE;

		/**
		 * With kind static: how long after Vault's rotation the reads of a fleet are
		 * spread over (Vault rotates at the next 5 s tick of its rotation queue).
		 */
		@DurationMin(nanos = 0, message = NOT_NEGATIVE)
		private Duration refreshSpread = Duration.ofSeconds(5);

		public @Nullable Duration getIncrement() {
			return this.increment;
		}

		public void setIncrement(@Nullable Duration increment) {
			this.increment = increment;
		}

		public @Nullable Kind getKind() {
			return this.kind;
		}

		public Sharing getSharing() {
			return this.sharing;
		}

		public void setSharing(Sharing sharing) {
			this.sharing = sharing;
		}

		public void setKind(@Nullable Kind kind) {
			this.kind = kind;
		}

		public Duration getRefreshSpread() {
			return this.refreshSpread;
		}

		public void setRefreshSpread(Duration refreshSpread) {
			this.refreshSpread = refreshSpread;
		}

		/**
		 * Return whether the lease is a database static role's credential: its kind, or
		 * else its path.
		 * @return whether it is
		 */
		public boolean isStatic() {
			return (this.kind != null) ? this.kind == Kind.STATIC
					: dev.leasekeeper.vault.StaticCredentialSource.isStatic(this.path);
		}

		/**
		 * Field of the lease's data that holds the pool's username, with datasource.
		 */
		@NotBlank(message = "must name the field of the secret that holds the username, such as username")
		private String usernameKey = "username";

		/**
		 * Field of the lease's data that holds the pool's password, with datasource.
		 */
		@NotBlank(message = "must name the field of the secret that holds the password, such as password")
		private String passwordKey = "password";

		public String getUsernameKey() {
			return this.usernameKey;
		}

		public void setUsernameKey(String usernameKey) {
			this.usernameKey = usernameKey;
		}

		public String getPasswordKey() {
			return this.passwordKey;
		}

		public void setPasswordKey(String passwordKey) {
			this.passwordKey = passwordKey;
		}

		public @Nullable String getPath() {
			return this.path;
		}

		public void setPath(@Nullable String path) {
			this.path = path;
		}

		public CeilingAction getOnCeiling() {
			return this.onCeiling;
		}

		public void setOnCeiling(CeilingAction onCeiling) {
			this.onCeiling = onCeiling;
		}

		public @Nullable String getDatasource() {
			return this.datasource;
		}

		public void setDatasource(@Nullable String datasource) {
			this.datasource = datasource;
		}

		/**
		 * Return whether the lease feeds spring.datasource's pool
		 * ({@code datasource: true}).
		 * @return whether it does
		 */
		public boolean feedsPrimaryDataSource() {
			return this.datasource != null && this.datasource.trim().equalsIgnoreCase("true");
		}

		/**
		 * Return the name of the application's {@code HikariDataSource} bean the lease
		 * feeds ({@code datasource: reportsDataSource}), or {@code null}.
		 * @return the bean's name, or {@code null}
		 */
		public @Nullable String dataSourceBean() {
			if (this.datasource == null) {
				return null;
			}
			String value = this.datasource.trim();
			return (value.isEmpty() || value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) ? null
					: value;
		}

	}

	/**
	 * A declared certificate: issued through {@code <mount>/issue/<role>}, re-issued
	 * before its {@code notAfter} with the same rules as a lease's renewal, and served
	 * through a Spring Boot SSL bundle.
	 */
	public static class Certificate extends LeaseSettings {

		/**
		 * Vault path to issue the certificate from, such as pki/issue/web.
		 */
		private @Nullable String path;

		/**
		 * Common name of the certificate, such as orders.example.com.
		 */
		@NotBlank(message = "must be the certificate's common name, such as orders.example.com")
		private @Nullable String commonName;

		/**
		 * DNS subject alternative names besides the common name.
		 */
		private List<String> altNames = new ArrayList<>();

		/**
		 * IP subject alternative names.
		 */
		private List<String> ipSans = new ArrayList<>();

		/**
		 * Validity to ask for; default: the role's TTL. Vault caps it at the role's max
		 * TTL.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private @Nullable Duration ttl;

		/**
		 * Name of the Spring Boot SSL bundle the certificate feeds (server.ssl.bundle);
		 * default: the certificate's name.
		 */
		@Pattern(regexp = NOT_BLANK_IF_SET,
				message = "must name the SSL bundle the certificate feeds, such as web (server.ssl.bundle=web)")
		private @Nullable String sslBundle;

		public @Nullable String getPath() {
			return this.path;
		}

		public void setPath(@Nullable String path) {
			this.path = path;
		}

		public @Nullable String getCommonName() {
			return this.commonName;
		}

		public void setCommonName(@Nullable String commonName) {
			this.commonName = commonName;
		}

		public List<String> getAltNames() {
			return this.altNames;
		}

		public void setAltNames(List<String> altNames) {
			this.altNames = altNames;
		}

		public List<String> getIpSans() {
			return this.ipSans;
		}

		public void setIpSans(List<String> ipSans) {
			this.ipSans = ipSans;
		}

		public @Nullable Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(@Nullable Duration ttl) {
			this.ttl = ttl;
		}

		public @Nullable String getSslBundle() {
			return this.sslBundle;
		}

		public void setSslBundle(@Nullable String sslBundle) {
			this.sslBundle = sslBundle;
		}

		/**
		 * Return the SSL bundle the certificate feeds.
		 * @param name the certificate's name
		 * @return the bundle's name
		 */
		public String sslBundleOr(String name) {
			return (this.sslBundle != null && !this.sslBundle.isBlank()) ? this.sslBundle.strip() : name;
		}

	}

	/**
	 * Connection to Vault.
	 */
	public static class Vault {

		/**
		 * Address of Vault.
		 */
		private URI uri = URI.create("http://127.0.0.1:8200");

		/**
		 * How Leasekeeper logs in.
		 */
		private Authentication authentication = Authentication.TOKEN;

		/**
		 * Token to log in with, for token authentication.
		 */
		private @Nullable String token;

		/**
		 * AppRole to log in with, for approle authentication.
		 */
		private final AppRole appRole = new AppRole();

		/**
		 * Kubernetes service account to log in with, for kubernetes authentication.
		 */
		private final Kubernetes kubernetes = new Kubernetes();

		/**
		 * Username and password to log in with, for userpass authentication.
		 */
		private final Userpass userpass = new Userpass();

		/**
		 * JWT login, with authentication jwt.
		 */
		private final Jwt jwt = new Jwt();

		/**
		 * GitHub login, with authentication github.
		 */
		private final GitHub github = new GitHub();

		/**
		 * Cubbyhole login (a response-wrapped token), with authentication cubbyhole.
		 */
		private final Cubbyhole cubbyhole = new Cubbyhole();

		/**
		 * Timeout for opening a connection to Vault.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private Duration connectionTimeout = Duration.ofSeconds(5);

		/**
		 * Name of the Spring Boot SSL bundle (spring.ssl.bundle.*) for TLS to Vault: its
		 * trust store holds Vault's CA, its key store the client certificate of a cert
		 * login.
		 */
		@Pattern(regexp = NOT_BLANK_IF_SET,
				message = "must name an SSL bundle declared under spring.ssl.bundle, or be left unset")
		private @Nullable String sslBundle;

		/**
		 * TLS certificate login, with authentication cert.
		 */
		private final Cert cert = new Cert();

		public @Nullable String getSslBundle() {
			return this.sslBundle;
		}

		public void setSslBundle(@Nullable String sslBundle) {
			this.sslBundle = sslBundle;
		}

		public Cert getCert() {
			return this.cert;
		}

		public URI getUri() {
			return this.uri;
		}

		public void setUri(URI uri) {
			this.uri = uri;
		}

		public Authentication getAuthentication() {
			return this.authentication;
		}

		public void setAuthentication(Authentication authentication) {
			this.authentication = authentication;
		}

		public @Nullable String getToken() {
			return this.token;
		}

		public void setToken(@Nullable String token) {
			this.token = token;
		}

		public AppRole getAppRole() {
			return this.appRole;
		}

		public Kubernetes getKubernetes() {
			return this.kubernetes;
		}

		public Userpass getUserpass() {
			return this.userpass;
		}

		public Jwt getJwt() {
			return this.jwt;
		}

		public GitHub getGithub() {
			return this.github;
		}

		public Cubbyhole getCubbyhole() {
			return this.cubbyhole;
		}

		public Duration getConnectionTimeout() {
			return this.connectionTimeout;
		}

		public void setConnectionTimeout(Duration connectionTimeout) {
			this.connectionTimeout = connectionTimeout;
		}

	}

	/**
	 * AppRole credentials.
	 */
	public static class AppRole {

		/**
		 * Role id.
		 */
		private @Nullable String roleId;

		/**
		 * Secret id.
		 */
		private @Nullable String secretId;

		/**
		 * Mount path of the AppRole auth method.
		 */
		private String path = "approle";

		public @Nullable String getRoleId() {
			return this.roleId;
		}

		public void setRoleId(@Nullable String roleId) {
			this.roleId = roleId;
		}

		public @Nullable String getSecretId() {
			return this.secretId;
		}

		public void setSecretId(@Nullable String secretId) {
			this.secretId = secretId;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

	}

	/**
	 * Kubernetes auth: the pod's service account token, read again at every login.
	 */
	public static class Kubernetes {

		/**
		 * Role to log in as (auth/kubernetes/role/<role>).
		 */
		private @Nullable String role;

		/**
		 * Mount path of the Kubernetes auth method.
		 */
		private String path = "kubernetes";

		/**
		 * File holding the pod's service account token. Read again at every login, so
		 * that a token Kubernetes rotated is never sent stale.
		 */
		private Path serviceAccountTokenFile = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

		public @Nullable String getRole() {
			return this.role;
		}

		public void setRole(@Nullable String role) {
			this.role = role;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

		public Path getServiceAccountTokenFile() {
			return this.serviceAccountTokenFile;
		}

		public void setServiceAccountTokenFile(Path serviceAccountTokenFile) {
			this.serviceAccountTokenFile = serviceAccountTokenFile;
		}

	}

	/**
	 * Cert auth: the client certificate of leasekeeper.vault.ssl-bundle.
	 */
	public static class Cert {

		/**
		 * Name of the certificate entry to log in with (auth/cert/certs/<name>); default:
		 * every entry that trusts the certificate.
		 */
		private @Nullable String name;

		/**
		 * Mount path of the cert auth method.
		 */
		private String path = "cert";

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

	}

	/**
	 * Cubbyhole auth: a wrapping token that unwraps, once, into the token to use.
	 */
	public static class Cubbyhole {

		/**
		 * Wrapping token (vault token create -wrap-ttl=...) handed to the application; it
		 * can be unwrapped once.
		 */
		private @Nullable String wrappedToken;

		public @Nullable String getWrappedToken() {
			return this.wrappedToken;
		}

		public void setWrappedToken(@Nullable String wrappedToken) {
			this.wrappedToken = wrappedToken;
		}

	}

	/**
	 * GitHub auth: a personal access token of a member of the configured organization.
	 */
	public static class GitHub {

		/**
		 * GitHub personal access token.
		 */
		private @Nullable String token;

		/**
		 * Mount path of the GitHub auth method.
		 */
		private String path = "github";

		public @Nullable String getToken() {
			return this.token;
		}

		public void setToken(@Nullable String token) {
			this.token = token;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

	}

	/**
	 * JWT auth: a role and a JWT from an identity provider the method trusts.
	 */
	public static class Jwt {

		/**
		 * Vault role to log in as.
		 */
		private @Nullable String role;

		/**
		 * File holding the JWT, read again at every login (a workload identity token that
		 * its issuer rotates).
		 */
		private @Nullable Path tokenFile;

		/**
		 * The JWT itself, when it is not in a file; it cannot be replaced once it
		 * expires.
		 */
		private @Nullable String token;

		/**
		 * Mount path of the JWT auth method.
		 */
		private String path = "jwt";

		public @Nullable String getRole() {
			return this.role;
		}

		public void setRole(@Nullable String role) {
			this.role = role;
		}

		public @Nullable Path getTokenFile() {
			return this.tokenFile;
		}

		public void setTokenFile(@Nullable Path tokenFile) {
			this.tokenFile = tokenFile;
		}

		public @Nullable String getToken() {
			return this.token;
		}

		public void setToken(@Nullable String token) {
			this.token = token;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

	}

	/**
	 * Userpass auth: a username and its password.
	 */
	public static class Userpass {

		/**
		 * Username to log in as.
		 */
		private @Nullable String username;

		/**
		 * Password of the user.
		 */
		private @Nullable String password;

		/**
		 * Mount path of the userpass auth method.
		 */
		private String path = "userpass";

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

	}

	/**
	 * How Leasekeeper logs in to Vault.
	 */
	public enum Authentication {

		/**
		 * A token given in leasekeeper.vault.token.
		 */
		TOKEN,

		/**
		 * AppRole, with leasekeeper.vault.app-role.role-id and secret-id.
		 */
		APPROLE,

		/**
		 * Kubernetes, with leasekeeper.vault.kubernetes.role and the pod's service
		 * account token.
		 */
		KUBERNETES,

		/**
		 * Userpass, with leasekeeper.vault.userpass.username and password.
		 */
		USERPASS,

		/**
		 * JWT, with leasekeeper.vault.jwt.role and a JWT (token-file or token).
		 */
		JWT,

		/**
		 * GitHub, with leasekeeper.vault.github.token.
		 */
		GITHUB,

		/**
		 * Cubbyhole, with leasekeeper.vault.cubbyhole.wrapped-token (unwrapped once).
		 */
		CUBBYHOLE,

		/**
		 * TLS client certificate, from the SSL bundle leasekeeper.vault.ssl-bundle.
		 */
		CERT

	}

	/**
	 * The kind of credential a lease is.
	 */
	public enum Kind {

		/**
		 * A lease: renewed, replaced before its max TTL, revoked.
		 */
		DYNAMIC,

		/**
		 * A database static role's credential: no lease; read again after each of Vault's
		 * rotations.
		 */
		STATIC

	}

	/**
	 * What to do when a lease is lost.
	 */
	public enum OnLost {

		/**
		 * Obtain a new credential, as a rotation.
		 */
		REACQUIRE,

		/**
		 * Close the application context and exit with a non-zero code, so that an
		 * orchestrator restarts the process.
		 */
		EXIT

	}

	/**
	 * The threads that call Vault.
	 */
	/**
	 * Who holds a lease's grant.
	 */
	public enum Sharing {

		/**
		 * Each instance obtains, renews and revokes its own grant.
		 */
		INSTANCE,

		/**
		 * The instances of a group share one grant: an elected leader keeps it and
		 * publishes it, every instance reads it.
		 */
		GROUP

	}

	/**
	 * Fleet scope: the group, where its leader publishes, and its election.
	 */
	public static class Fleet {

		/**
		 * Name of the group whose instances share the leases declared with sharing:
		 * group; by default spring.application.name.
		 */
		@Pattern(regexp = "[A-Za-z0-9._-]+",
				message = "must be letters, digits, '.', '_' and '-' (it names a KV path and a lock)")
		private @Nullable String group;

		/**
		 * KV version 2 path under which each group publishes its shared grants, at
		 * <kv-path>/<group>/<lease>: <mount>/data/<prefix>.
		 */
		@NotBlank(message = "must be a KV version 2 data path, such as secret/data/leasekeeper")
		private String kvPath = "secret/data/leasekeeper";

		/**
		 * Vault token role that makes the group token (orphan, periodic): the token the
		 * shared leases are obtained with, which outlives every instance.
		 */
		@Pattern(regexp = NOT_BLANK_IF_SET, message = "must name a token role, such as leasekeeper-orders")
		private @Nullable String tokenRole;

		/**
		 * How long after the leader's publication is due the followers' reads are spread
		 * over.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private Duration readSpread = Duration.ofSeconds(30);

		/**
		 * How long after a late publication is seen the followers' attempts to take over
		 * are spread over.
		 */
		@DurationMin(nanos = 1, message = POSITIVE)
		private Duration failoverWindow = Duration.ofSeconds(30);

		/**
		 * The election's lock, when the application has no LockRegistry bean: a
		 * JdbcLockRegistry on a connection of its own.
		 */
		@Valid
		private final Lock lock = new Lock();

		public @Nullable String getGroup() {
			return this.group;
		}

		public void setGroup(@Nullable String group) {
			this.group = group;
		}

		public String getKvPath() {
			return this.kvPath;
		}

		public void setKvPath(String kvPath) {
			this.kvPath = kvPath;
		}

		public @Nullable String getTokenRole() {
			return this.tokenRole;
		}

		public void setTokenRole(@Nullable String tokenRole) {
			this.tokenRole = tokenRole;
		}

		public Duration getReadSpread() {
			return this.readSpread;
		}

		public void setReadSpread(Duration readSpread) {
			this.readSpread = readSpread;
		}

		public Duration getFailoverWindow() {
			return this.failoverWindow;
		}

		public void setFailoverWindow(Duration failoverWindow) {
			this.failoverWindow = failoverWindow;
		}

		public Lock getLock() {
			return this.lock;
		}

	}

	/**
	 * The connection of the election's JdbcLockRegistry: never the shared grant's.
	 */
	public static class Lock {

		/**
		 * JDBC URL of the database holding Spring Integration's INT_LOCK table.
		 */
		@Pattern(regexp = "jdbc:.+", message = "must be a JDBC URL, such as jdbc:postgresql://db:5432/app")
		private @Nullable String url;

		/**
		 * Name of a lease under leasekeeper.leases (sharing: instance: a static role or a
		 * dynamic lease whose database role may only use INT_LOCK) whose credential the
		 * lock's connection uses, instead of username and password.
		 */
		@Pattern(regexp = NOT_BLANK_IF_SET, message = "must name a lease declared under leasekeeper.leases")
		private @Nullable String lease;

		/**
		 * User of the lock's connection: a role that may only use INT_LOCK.
		 */
		@Pattern(regexp = NOT_BLANK_IF_SET, message = "must name the database user of the lock's connection")
		private @Nullable String username;

		/**
		 * Password of the lock's connection.
		 */
		private @Nullable String password;

		/**
		 * How long the lock outlives a leader that stopped renewing it (the leader renews
		 * it five times as often).
		 */
		@DurationMin(millis = 250, message = "must be at least 250ms")
		private Duration timeToLive = Duration.ofSeconds(10);

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

		public @Nullable String getLease() {
			return this.lease;
		}

		public void setLease(@Nullable String lease) {
			this.lease = lease;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public Duration getTimeToLive() {
			return this.timeToLive;
		}

		public void setTimeToLive(Duration timeToLive) {
			this.timeToLive = timeToLive;
		}

		@Override
		public String toString() {
			return "Lock[url=" + this.url + ", lease=" + this.lease + ", username=" + this.username + ", password="
					+ ((this.password != null) ? "****" : null) + ", timeToLive=" + this.timeToLive + "]";
		}

	}

	public static class Io {

		/**
		 * How many calls to Vault may run at once, shared by every lease (each lease has
		 * at most one in flight). Sized for 1,000 leases of a few minutes' TTL or more;
		 * with spring.threads.virtual.enabled=true on Java 21 or later, a virtual thread
		 * per call instead.
		 */
		@Min(value = 1, message = "must be at least 1")
		private int threads = 16;

		public int getThreads() {
			return this.threads;
		}

		public void setThreads(int threads) {
			this.threads = threads;
		}

	}

}
