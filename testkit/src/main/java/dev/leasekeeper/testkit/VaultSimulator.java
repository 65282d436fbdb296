package dev.leasekeeper.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpServer;
import org.jspecify.annotations.Nullable;

/**
 * A Vault to test against: a real HTTP server on {@code 127.0.0.1}, in-process, answering
 * as Vault does for token auth, AppRole, the database secrets engine and
 * {@code sys/leases} (see {@code VAULT_SEMANTICS.md}), with faults on demand and a
 * journal of every request. Expired leases are revoked by its own expiry loop, within
 * about a second, as Vault does. <pre class="code">
 * VaultSimulator vault = VaultSimulator.builder()
 *     .databaseRole("orders", Duration.ofSeconds(20), Duration.ofSeconds(60))
 *     .build()
 *     .start();
 * </pre>
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class VaultSimulator implements AutoCloseable {

	/**
	 * The policy the simulator declares besides {@code root} and {@code default}: the one
	 * README's "Running the sample against a real Vault" gives an application, with a
	 * {@code read} rule for every database role the simulator serves, until it is written
	 * or deleted.
	 */
	public static final String APPLICATION_POLICY = VaultModel.APPLICATION_POLICY;

	private final int requestedPort;

	private final String rootToken;

	/**
	 * Whether it listens on HTTPS (certificate from its PKI CA, client certificates asked
	 * for).
	 */
	private final boolean tls;

	private final Clock clock;

	private final VaultModel model;

	private final Faults faults = new Faults();

	private final List<JournalEntry> journal = Collections.synchronizedList(new ArrayList<>());

	private final ExecutorService requestThreads = Executors.newFixedThreadPool(8, (runnable) -> {
		Thread thread = new Thread(runnable, "vault-simulator-http");
		thread.setDaemon(true);
		return thread;
	});

	private final ScheduledExecutorService expiryLoop = Executors.newSingleThreadScheduledExecutor((runnable) -> {
		Thread thread = new Thread(runnable, "vault-simulator-expiry");
		thread.setDaemon(true);
		return thread;
	});

	private @Nullable HttpServer server;

	private int port;

	private VaultSimulator(Builder builder) {
		this.requestedPort = builder.port;
		this.tls = builder.tls;
		this.rootToken = builder.rootToken;
		this.clock = builder.clock;
		this.model = new VaultModel(builder.clock, builder.database, builder.rootToken);
		builder.configuration.forEach((step) -> step.accept(this.model));
	}

	/**
	 * Return a builder.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Start listening, and start the expiry loop.
	 * @return this simulator
	 */
	public synchronized VaultSimulator start() {
		listen(this.requestedPort);
		this.expiryLoop.scheduleWithFixedDelay(this::expireQuietly, 200, 200, TimeUnit.MILLISECONDS);
		return this;
	}

	/**
	 * Stop listening and stop the expiry loop.
	 */
	@Override
	public synchronized void close() {
		this.faults.setHanging(false);
		if (this.server != null) {
			this.server.stop(0);
			this.server = null;
		}
		this.expiryLoop.shutdownNow();
		this.requestThreads.shutdownNow();
	}

	/**
	 * Return the address to reach this simulator at, such as
	 * {@code http://127.0.0.1:54321}.
	 * @return the URI
	 */
	public URI uri() {
		return URI.create((this.tls ? "https" : "http") + "://127.0.0.1:" + this.port);
	}

	/**
	 * Return the port this simulator listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Return the root token the simulator was started with.
	 * @return the root token
	 */
	public String rootToken() {
		return this.rootToken;
	}

	/**
	 * Return the clock the simulator reads.
	 * @return the clock
	 */
	public Clock clock() {
		return this.clock;
	}

	// --- faults
	// -----------------------------------------------------------------------------------------

	/**
	 * Start or end an outage: while it lasts, connections are refused.
	 * @param down whether the simulator is down
	 */
	public synchronized void outage(boolean down) {
		if (down && this.server != null) {
			this.server.stop(0);
			this.server = null;
		}
		else if (!down && this.server == null) {
			listen(this.port);
		}
	}

	/**
	 * Start or end an outage whose connections hang, as behind a network that drops
	 * packets or a load balancer whose backend is gone: while it lasts, connections are
	 * accepted and requests read, but nothing reaches Vault (nothing is applied or
	 * journaled) and nothing is answered; when it ends, every held connection is closed
	 * without an answer.
	 * @param hanging whether connections hang
	 * @return at the end, how many requests were held; else 0
	 */
	public int hang(boolean hanging) {
		return this.faults.setHanging(hanging);
	}

	/** How many requests are held unanswered by the hang under way. */
	int heldRequests() {
		return this.faults.held();
	}

	/**
	 * Seal or unseal: while sealed, every request but {@code sys/health} answers 503
	 * {@code Vault is sealed}.
	 * @param sealed whether the simulator is sealed
	 */
	public void sealed(boolean sealed) {
		this.faults.setSealed(sealed);
	}

	/**
	 * Answer 429 {@code rate limit quota exceeded} on every path that matches
	 * {@code pathPattern} (a regular expression on the path after {@code /v1/}), or stop
	 * doing so with {@code null}.
	 * @param pathPattern the pattern, or {@code null}
	 */
	public void rateLimit(@Nullable String pathPattern) {
		this.faults.setRateLimited((pathPattern != null) ? Pattern.compile(pathPattern) : null);
	}

	/**
	 * Delay every answer by {@code latency}.
	 * @param latency the delay
	 */
	public void latency(Duration latency) {
		this.faults.setLatency((path) -> latency);
	}

	/**
	 * Delay each answer by what {@code latency} says for its path.
	 * @param latency the delay of each path
	 */
	public void latency(Function<String, Duration> latency) {
		this.faults.setLatency(latency);
	}

	/**
	 * Revoke a secret lease out of band (its database role is dropped).
	 * @param leaseId the lease id
	 */
	public void revokeLease(String leaseId) {
		this.model.revokeLease(leaseId);
	}

	/**
	 * Revoke a token out of band, with its children and every lease it created.
	 * @param tokenOrAccessor the token or its accessor
	 */
	public void revokeToken(String tokenOrAccessor) {
		VaultModel.Token token = this.model.tokenById(tokenOrAccessor);
		if (token == null) {
			token = this.model.tokenByAccessor(tokenOrAccessor);
		}
		if (token != null) {
			this.model.revokeToken(token);
		}
	}

	/**
	 * Drop the database user behind a secret lease out of band, leaving the lease itself
	 * alive in Vault: the credential stops working while Vault still renews it.
	 * @param leaseId the lease id
	 */
	public void dropDatabaseUser(String leaseId) {
		this.model.dropDatabaseUser(leaseId);
	}

	/**
	 * Return the policy README's "Running the sample against a real Vault" gives an
	 * application, for the given database roles: what {@link #APPLICATION_POLICY} holds.
	 * @param databaseRoles the roles whose credentials it may read
	 * @return the policy's HCL
	 */
	public static String applicationPolicy(String... databaseRoles) {
		return Policy.application(List.of(databaseRoles), List.of());
	}

	/**
	 * Write an ACL policy as an operator would ({@code vault policy write}): it applies
	 * at once to every token that names it.
	 * @param name the policy's name
	 * @param policy its HCL or JSON text
	 */
	public void writePolicy(String name, String policy) {
		this.model.writePolicy(name, policy);
	}

	/**
	 * Delete an ACL policy: the tokens that name it lose its rights at once.
	 * @param name the policy's name
	 */
	public void deletePolicy(String name) {
		this.model.deletePolicy(name);
	}

	/**
	 * Read the latest version of a KV version 2 entry under {@code secret/}, as an
	 * operator would ({@code vault kv get}).
	 * @param key the entry's key, such as {@code leasekeeper/orders/orders-db}
	 * @return its data, or {@code null} when it does not exist
	 */
	@SuppressWarnings("unchecked")
	public @Nullable Map<String, Object> kvRead(String key) {
		try {
			return (Map<String, Object>) this.model.kv().read(key, null).get("data");
		}
		catch (VaultError ex) {
			return null;
		}
	}

	/**
	 * Return the current version of a KV version 2 entry under {@code secret/}.
	 * @param key the entry's key
	 * @return its current version, 0 when it does not exist
	 */
	public int kvVersion(String key) {
		return this.model.kv().currentVersion(key);
	}

	/**
	 * Write a KV version 2 entry under {@code secret/} as an operator would, without
	 * check-and-set: a new version.
	 * @param key the entry's key
	 * @param data its data
	 * @return the new version
	 */
	public int kvWrite(String key, Map<String, Object> data) {
		return (int) this.model.kv().write(key, data, null).get("version");
	}

	/**
	 * Return the custom metadata of a KV version 2 entry under {@code secret/}.
	 * @param key the entry's key
	 * @return its custom metadata, empty when there is none or no entry
	 */
	@SuppressWarnings("unchecked")
	public Map<String, String> kvCustomMetadata(String key) {
		try {
			Object custom = this.model.kv().metadata(key).get("custom_metadata");
			return (custom != null) ? (Map<String, String>) custom : Map.of();
		}
		catch (VaultError ex) {
			return Map.of();
		}
	}

	/**
	 * Create a token as the root token's child ({@code auth/token/create}) with the given
	 * policies ({@code default} is added) and TTL.
	 * @param ttl its TTL, or {@code null} for the system default (768 h)
	 * @param policies its policies
	 * @return the token
	 */
	public String createToken(@Nullable Duration ttl, String... policies) {
		VaultModel.Token root = this.model.authenticate(this.rootToken);
		return this.model.createToken(root, ttl, null, null, true, List.of(policies), false, null).token().id;
	}

	/**
	 * Create a token as the root token's child with a TTL and an explicit max TTL, as an
	 * operator makes one to hand to an application ({@code vault token create -ttl=...
	 * -explicit-max-ttl=...}).
	 * @param ttl its TTL
	 * @param explicitMaxTtl its explicit max TTL
	 * @param policies its policies
	 * @return the token
	 */
	public String createToken(Duration ttl, Duration explicitMaxTtl, String... policies) {
		VaultModel.Token root = this.model.authenticate(this.rootToken);
		return this.model.createToken(root, ttl, explicitMaxTtl, null, true, List.of(policies), false, null).token().id;
	}

	/**
	 * Issue a service account token, as the Kubernetes cluster mounts one into a pod:
	 * {@code auth/kubernetes/login} accepts it until it is
	 * {@linkplain #invalidateServiceAccountToken invalidated}.
	 * @param namespace the service account's namespace
	 * @param name the service account's name
	 * @return the token (a JWT)
	 */
	public String serviceAccountToken(String namespace, String name) {
		return this.model.serviceAccountToken(namespace, name);
	}

	/**
	 * Create a token and wrap it, as {@code vault token create -wrap-ttl=...} does: the
	 * returned wrapping token unwraps once, through {@code sys/wrapping/unwrap}, into a
	 * token carrying the given policies.
	 * @param wrapTtl how long the wrapping token may be unwrapped
	 * @param ttl the wrapped token's TTL
	 * @param policies its policies
	 * @return the wrapping token
	 */
	public String wrappedToken(Duration wrapTtl, @Nullable Duration ttl, String... policies) {
		VaultModel.Token root = this.model.authenticate(this.rootToken);
		VaultModel.Token token = this.model.createToken(root, ttl, null, null, true, List.of(policies), false, null)
			.token();
		return this.model.wrap(token, wrapTtl);
	}

	/**
	 * Sign a JWT (RS256) as the identity provider the JWT auth method trusts
	 * ({@code jwt_validation_pubkeys}) would: a workload's identity for
	 * {@code auth/jwt/login}.
	 * @param subject its {@code sub}
	 * @param audience its {@code aud}
	 * @param validity from now to its {@code exp}
	 * @return the JWT
	 */
	public String signJwt(String subject, String audience, Duration validity) {
		return this.model.signJwt(subject, audience, validity);
	}

	/**
	 * Make the cluster stop vouching for a service account token (Kubernetes rotated the
	 * projected token, or the service account was deleted): a login with it is refused
	 * (403).
	 * @param jwt the token
	 */
	public void invalidateServiceAccountToken(String jwt) {
		this.model.invalidateServiceAccountToken(jwt);
	}

	/**
	 * Change a database or AppRole role's TTL and max TTL; applies from the next request.
	 * @param role the role's name
	 * @param ttl the new default TTL
	 * @param maxTtl the new max TTL
	 */
	public void changeRole(String role, Duration ttl, Duration maxTtl) {
		this.model.changeRole(role, ttl, maxTtl);
	}

	// --- what the simulator holds and heard
	// -------------------------------------------------------------

	/**
	 * Rotate a static role's password now, as {@code vault write -f
	 * database/rotate-role/<name>} does.
	 * @param name the static role
	 */
	public void rotateStaticRole(String name) {
		this.model.rotateRole(name);
	}

	/**
	 * Return the certificate of the PKI engine's root CA, which signs every certificate
	 * {@code pki/issue/<role>} answers: a client that trusts it validates them.
	 * @return the CA's certificate
	 */
	public java.security.cert.X509Certificate caCertificate() {
		return this.model.pki().caCertificate();
	}

	/**
	 * Return the serials ({@code 1a:2b:...}) of every certificate the PKI engine issued.
	 * @return the serials
	 */
	public java.util.Set<String> issuedCertificates() {
		return this.model.pki().issuedSerials();
	}

	/**
	 * Return whether a certificate was revoked through {@code pki/revoke}.
	 * @param serial its serial, colon-separated
	 * @return whether it is revoked
	 */
	public boolean isCertificateRevoked(String serial) {
		return this.model.pki().isRevoked(serial);
	}

	/**
	 * Return whether a secret lease exists, unrevoked and unexpired.
	 * @param leaseId the lease id
	 * @return whether it is alive
	 */
	public boolean isLeaseAlive(String leaseId) {
		VaultModel.SecretLease lease = this.model.lease(leaseId);
		return lease != null && !lease.revoked && this.clock.instant().isBefore(lease.expireAt)
				&& lease.token.isAlive(this.clock.instant());
	}

	/**
	 * Return the secret leases alive now whose ids start with a prefix.
	 * @param prefix such as {@code database/creds/orders/}
	 * @return their lease ids
	 */
	public List<String> liveLeases(String prefix) {
		return this.model.listLeases(prefix).stream().map((key) -> prefix + key).filter(this::isLeaseAlive).toList();
	}

	/**
	 * Return the database username a secret lease created.
	 * @param leaseId the lease id
	 * @return the username, or {@code null} for an unknown lease
	 */
	public @Nullable String usernameOf(String leaseId) {
		VaultModel.SecretLease lease = this.model.lease(leaseId);
		return (lease != null) ? lease.username : null;
	}

	/**
	 * Return whether a token (or accessor) is alive.
	 * @param tokenOrAccessor the token or its accessor
	 * @return whether it is alive
	 */
	public boolean isTokenAlive(String tokenOrAccessor) {
		VaultModel.Token token = this.model.tokenById(tokenOrAccessor);
		if (token == null) {
			token = this.model.tokenByAccessor(tokenOrAccessor);
		}
		return token != null && token.isAlive(this.clock.instant());
	}

	/**
	 * Return every secret value the simulator issued or was configured with (tokens,
	 * accessors, passwords, AppRole secret ids), so that a test can prove none of them
	 * leaks into logs, events, metrics or endpoints.
	 * @return the secrets
	 */
	public java.util.Set<String> issuedSecrets() {
		return this.model.secrets();
	}

	/**
	 * Return every request answered so far, in order of arrival.
	 * @return a copy of the journal
	 */
	public List<JournalEntry> journal() {
		synchronized (this.journal) {
			return List.copyOf(this.journal);
		}
	}

	/**
	 * Return the requests that match {@code filter}.
	 * @param filter the filter
	 * @return the matching requests, in order
	 */
	public List<JournalEntry> journal(Predicate<JournalEntry> filter) {
		return journal().stream().filter(filter).toList();
	}

	/**
	 * Forget every request heard so far.
	 */
	public void clearJournal() {
		this.journal.clear();
	}

	private void listen(int port) {
		try {
			InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
			HttpServer server = this.tls ? httpsServer(address) : HttpServer.create(address, 64);
			server.createContext("/", new VaultHttpHandler(this.model, this.faults, this.journal));
			server.setExecutor(this.requestThreads);
			server.start();
			this.server = server;
			this.port = server.getAddress().getPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot listen on 127.0.0.1:" + port, ex);
		}
	}

	/**
	 * An HTTPS listener as Vault's with {@code tls_require_and_verify_client_cert=false}:
	 * its certificate (for {@code localhost} and {@code 127.0.0.1}) is signed by the PKI
	 * engine's CA; a client certificate is asked for but not required, and checked by the
	 * cert auth method, not by the handshake.
	 */
	private HttpServer httpsServer(InetSocketAddress address) throws IOException {
		try {
			PkiEngine.Leaf leaf = this.model.pki()
				.leaf("localhost", List.of("localhost"), List.of("127.0.0.1"), Duration.ofDays(365));
			char[] password = java.util.UUID.randomUUID().toString().toCharArray();
			javax.net.ssl.KeyManagerFactory keys = javax.net.ssl.KeyManagerFactory
				.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
			keys.init(leaf.keyStore("vault", password), password);
			javax.net.ssl.TrustManager acceptAny = new javax.net.ssl.X509TrustManager() {

				@Override
				public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {
					// the cert auth method decides
				}

				@Override
				public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {
				}

				@Override
				public java.security.cert.X509Certificate[] getAcceptedIssuers() {
					return new java.security.cert.X509Certificate[0];
				}

			};
			javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
			context.init(keys.getKeyManagers(), new javax.net.ssl.TrustManager[] { acceptAny }, null);
			com.sun.net.httpserver.HttpsServer server = com.sun.net.httpserver.HttpsServer.create(address, 64);
			server.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(context) {

				@Override
				public void configure(com.sun.net.httpserver.HttpsParameters parameters) {
					javax.net.ssl.SSLParameters ssl = getSSLContext().getDefaultSSLParameters();
					ssl.setWantClientAuth(true);
					parameters.setSSLParameters(ssl);
				}

			});
			return server;
		}
		catch (java.security.GeneralSecurityException ex) {
			throw new IllegalStateException("Cannot make the simulator's TLS listener", ex);
		}
	}

	/**
	 * Issue a client certificate signed by the PKI engine's CA, for the cert auth method.
	 * @param commonName its common name
	 * @param validity how long it is valid
	 * @return its certificate and private key, in PEM
	 */
	public ClientCertificate clientCertificate(String commonName, Duration validity) {
		PkiEngine.Leaf leaf = this.model.pki().leaf(commonName, List.of(), List.of(), validity);
		return new ClientCertificate(leaf.certificatePem(), leaf.privateKeyPem());
	}

	/**
	 * A client certificate and its private key, in PEM.
	 *
	 * @param certificate the certificate
	 * @param privateKey the private key (PKCS#8)
	 */
	public record ClientCertificate(String certificate, String privateKey) {

		@Override
		public String toString() {
			return "ClientCertificate[certificate=" + this.certificate.length() + " chars, privateKey=****]";
		}

	}

	/** Run the expiry loop's round now (for a test whose clock jumped). */
	void expireNow() {
		this.model.expire();
	}

	private void expireQuietly() {
		try {
			this.model.expire();
		}
		catch (RuntimeException ex) {
			// the loop must survive a failing database; the next round tries again
		}
	}

	/**
	 * Builds a {@link VaultSimulator}.
	 */
	public static final class Builder {

		private int port;

		private String rootToken = "root";

		private Clock clock = Clock.systemUTC();

		private DatabaseBackend database = DatabaseBackend.NONE;

		private boolean tls;

		private final List<java.util.function.Consumer<VaultModel>> configuration = new ArrayList<>();

		private Builder() {
		}

		/**
		 * Listen on a given port instead of a random one.
		 * @param port the port, 0 for a random one
		 * @return this builder
		 */
		public Builder port(int port) {
			this.port = port;
			return this;
		}

		/**
		 * Set the root token.
		 * @param rootToken the root token
		 * @return this builder
		 */
		public Builder rootToken(String rootToken) {
			this.rootToken = rootToken;
			return this;
		}

		/**
		 * Set the clock the simulator reads (a {@link SimulatorClock} can be jumped).
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder clock(Clock clock) {
			this.clock = clock;
			return this;
		}

		/**
		 * Set the database behind the database secrets engine.
		 * @param database the backend
		 * @return this builder
		 */
		public Builder database(DatabaseBackend database) {
			this.database = database;
			return this;
		}

		/**
		 * Add a role to the database secrets engine, served at
		 * {@code database/creds/<name>}.
		 * @param name the role's name
		 * @param defaultTtl its {@code default_ttl}
		 * @param maxTtl its {@code max_ttl}
		 * @return this builder
		 */
		public Builder databaseRole(String name, Duration defaultTtl, Duration maxTtl) {
			this.configuration.add((model) -> model.databaseRole(name, defaultTtl, maxTtl));
			return this;
		}

		/**
		 * Add a static role to the database secrets engine
		 * ({@code database/static-roles/<name>}), served at
		 * {@code database/static-creds/<name>}: Vault sets the user's password at once
		 * and then every {@code rotationPeriod} (at the first 5 s tick of its rotation
		 * queue after it is due); with PostgreSQL behind it,
		 * {@code ALTER ROLE ... PASSWORD} (the user is created with the role's grant if
		 * it does not exist).
		 * @param name the static role's name
		 * @param username the database user it manages
		 * @param rotationPeriod its {@code rotation_period} (5 s or more)
		 * @return this builder
		 */
		public Builder staticRole(String name, String username, Duration rotationPeriod) {
			this.configuration.add((model) -> model.staticRole(name, username, rotationPeriod));
			return this;
		}

		/**
		 * Add an AppRole role whose tokens carry {@link #APPLICATION_POLICY} (and
		 * {@code default}).
		 * @param name the role's name
		 * @param roleId its role id
		 * @param secretId the secret id that logs in with it
		 * @param tokenTtl the TTL of its tokens
		 * @param tokenMaxTtl the max TTL of its tokens
		 * @return this builder
		 */
		public Builder appRole(String name, String roleId, String secretId, Duration tokenTtl, Duration tokenMaxTtl) {
			return appRole(name, roleId, secretId, tokenTtl, tokenMaxTtl, List.of(APPLICATION_POLICY));
		}

		/**
		 * Add an AppRole role with its {@code token_policies}.
		 * @param name the role's name
		 * @param roleId its role id
		 * @param secretId the secret id that logs in with it
		 * @param tokenTtl the TTL of its tokens
		 * @param tokenMaxTtl the max TTL of its tokens
		 * @param tokenPolicies the policies of its tokens ({@code default} is added)
		 * @return this builder
		 */
		public Builder appRole(String name, String roleId, String secretId, Duration tokenTtl, Duration tokenMaxTtl,
				List<String> tokenPolicies) {
			this.configuration
				.add((model) -> model.appRole(name, roleId, secretId, tokenTtl, tokenMaxTtl, null, tokenPolicies));
			return this;
		}

		/**
		 * Add a Kubernetes auth role ({@code auth/kubernetes/role/<name>}) bound to one
		 * service account, whose tokens carry {@link #APPLICATION_POLICY} (and
		 * {@code default}).
		 * @param name the role's name
		 * @param serviceAccountName the bound service account name ({@code *} for any)
		 * @param namespace the bound namespace ({@code *} for any)
		 * @param tokenTtl the TTL of its tokens
		 * @param tokenMaxTtl the max TTL of its tokens
		 * @return this builder
		 */
		public Builder kubernetesRole(String name, String serviceAccountName, String namespace, Duration tokenTtl,
				Duration tokenMaxTtl) {
			this.configuration.add((model) -> model.kubernetesRole(name, List.of(serviceAccountName),
					List.of(namespace), tokenTtl, tokenMaxTtl, List.of(APPLICATION_POLICY)));
			return this;
		}

		/**
		 * Add a JWT auth role ({@code auth/jwt/role/<name>}, {@code role_type=jwt},
		 * {@code user_claim=sub}) bound to one audience, whose tokens carry
		 * {@link #APPLICATION_POLICY} (and {@code default}); the method trusts the key
		 * {@link VaultSimulator#signJwt} signs with.
		 * @param name the role's name
		 * @param boundAudience its {@code bound_audiences}
		 * @param tokenTtl the TTL of its tokens
		 * @param tokenMaxTtl the max TTL of its tokens
		 * @return this builder
		 */
		public Builder jwtRole(String name, String boundAudience, Duration tokenTtl, Duration tokenMaxTtl) {
			this.configuration
				.add((model) -> model.jwtRole(name, boundAudience, tokenTtl, tokenMaxTtl, List.of(APPLICATION_POLICY)));
			return this;
		}

		/**
		 * Listen on HTTPS instead of HTTP, with a certificate for {@code localhost} and
		 * {@code 127.0.0.1} signed by the PKI engine's CA
		 * ({@link VaultSimulator#caCertificate()}), asking for a client certificate (not
		 * requiring one) for the cert auth method.
		 * @return this builder
		 */
		public Builder tls() {
			this.tls = true;
			return this;
		}

		/**
		 * Add a cert auth entry ({@code auth/cert/certs/<name>}) whose trusted
		 * certificate is the PKI engine's CA, whose tokens carry
		 * {@link #APPLICATION_POLICY} (and {@code default}): a client certificate from
		 * {@link VaultSimulator#clientCertificate} logs in with it.
		 * @param name the entry's name
		 * @param tokenTtl the TTL of its tokens
		 * @param tokenMaxTtl their max TTL
		 * @return this builder
		 */
		public Builder certRole(String name, Duration tokenTtl, Duration tokenMaxTtl) {
			this.configuration.add((model) -> model.certRole(name, tokenTtl, tokenMaxTtl, List.of(APPLICATION_POLICY)));
			return this;
		}

		/**
		 * Add a GitHub user and their personal access token, as the GitHub API the
		 * {@code github} auth method asks knows them, whose Vault tokens carry
		 * {@link #APPLICATION_POLICY} (and {@code default}).
		 * @param accessToken the personal access token
		 * @param login the GitHub login
		 * @param member whether the user is in the organization the method requires
		 * @param tokenTtl the TTL of the Vault tokens
		 * @param tokenMaxTtl their max TTL
		 * @return this builder
		 */
		public Builder gitHubUser(String accessToken, String login, boolean member, Duration tokenTtl,
				Duration tokenMaxTtl) {
			this.configuration.add((model) -> model.gitHubUser(accessToken, login, member, tokenTtl, tokenMaxTtl,
					List.of(APPLICATION_POLICY)));
			return this;
		}

		/**
		 * Add a userpass user ({@code auth/userpass/users/<username>}) whose tokens carry
		 * {@link #APPLICATION_POLICY} (and {@code default}).
		 * @param username the user's name (Vault keeps it lower-case)
		 * @param password the user's password
		 * @param tokenTtl the TTL of its tokens
		 * @param tokenMaxTtl the max TTL of its tokens
		 * @return this builder
		 */
		public Builder user(String username, String password, Duration tokenTtl, Duration tokenMaxTtl) {
			this.configuration
				.add((model) -> model.user(username, password, tokenTtl, tokenMaxTtl, List.of(APPLICATION_POLICY)));
			return this;
		}

		/**
		 * Add a role to the PKI secrets engine, served at {@code pki/issue/<name>}: RSA
		 * 2048 keys, the names of {@code allowedDomains} and their subdomains (and
		 * {@code localhost}), IP SANs allowed, as {@code vault write pki/roles/<name>
		 * allowed_domains=... allow_subdomains=true allow_bare_domains=true} makes it.
		 * @param name the role's name
		 * @param ttl its {@code ttl}
		 * @param maxTtl its {@code max_ttl}
		 * @param allowedDomains its {@code allowed_domains}
		 * @return this builder
		 */
		public Builder pkiRole(String name, Duration ttl, Duration maxTtl, String... allowedDomains) {
			PkiEngine.Role role = new PkiEngine.Role(ttl, maxTtl, List.of(allowedDomains), true, true, true, false,
					true, PkiEngine.KeyType.RSA);
			this.configuration.add((model) -> model.pkiRole(name, role));
			return this;
		}

		/**
		 * Declare an ACL policy.
		 * @param name the policy's name
		 * @param policy its HCL or JSON text
		 * @return this builder
		 */
		public Builder policy(String name, String policy) {
			this.configuration.add((model) -> model.writePolicy(name, policy));
			return this;
		}

		/**
		 * Add a token role ({@code auth/token/roles/<name>}) whose tokens,
		 * {@code auth/token/create/<name>}, carry the allowed policies (and
		 * {@code default}).
		 * @param name the role's name
		 * @param orphan whether its tokens have no parent (outlive the token that made
		 * them)
		 * @param period its {@code token_period}: a periodic token renewed to this TTL
		 * for ever; {@code null} for none
		 * @param allowedPolicies its {@code allowed_policies}
		 * @return this builder
		 */
		public Builder tokenRole(String name, boolean orphan, @Nullable Duration period, String... allowedPolicies) {
			return tokenRole(name, orphan, period, null, allowedPolicies);
		}

		/**
		 * Add a token role whose tokens end at an explicit max TTL
		 * ({@code token_explicit_max_ttl}), renewed as they may be until then.
		 * @param name the role's name
		 * @param orphan whether its tokens have no parent
		 * @param period the tokens' period, or {@code null} for none
		 * @param explicitMaxTtl how long its tokens live at most, or {@code null} for the
		 * system's max TTL
		 * @param allowedPolicies the policies its tokens may have
		 * @return this builder
		 */
		public Builder tokenRole(String name, boolean orphan, @Nullable Duration period,
				@Nullable Duration explicitMaxTtl, String... allowedPolicies) {
			this.configuration
				.add((model) -> model.tokenRole(name, List.of(allowedPolicies), orphan, period, true, explicitMaxTtl));
			return this;
		}

		/**
		 * Build the simulator; it listens once {@link VaultSimulator#start() started}.
		 * @return the simulator
		 */
		public VaultSimulator build() {
			return new VaultSimulator(this);
		}

	}

}
