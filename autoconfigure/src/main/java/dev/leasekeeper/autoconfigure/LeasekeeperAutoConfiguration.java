package dev.leasekeeper.autoconfigure;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Kubernetes;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Vault;
import dev.leasekeeper.core.ExecutorLeaseScheduler;
import dev.leasekeeper.core.FollowedToken;
import dev.leasekeeper.core.LeaseRegistry;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.SuspendDetector;
import dev.leasekeeper.tls.CertificateBundles;
import dev.leasekeeper.vault.FollowedTokenLookup;
import dev.leasekeeper.vault.LeaseSessionManager;
import dev.leasekeeper.vault.TokenLeaseSource;

import org.springframework.beans.factory.ListableBeanFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.ssl.SslBundleRegistrar;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.vault.authentication.AppRoleAuthentication;
import org.springframework.vault.authentication.AppRoleAuthenticationOptions;
import org.springframework.vault.authentication.ClientAuthentication;
import org.springframework.vault.authentication.ClientCertificateAuthentication;
import org.springframework.vault.authentication.ClientCertificateAuthenticationOptions;
import org.springframework.vault.authentication.CubbyholeAuthentication;
import org.springframework.vault.authentication.CubbyholeAuthenticationOptions;
import org.springframework.vault.authentication.GitHubAuthentication;
import org.springframework.vault.authentication.GitHubAuthenticationOptions;
import org.springframework.vault.authentication.JwtAuthentication;
import org.springframework.vault.authentication.JwtAuthenticationOptions;
import org.springframework.vault.authentication.KubernetesAuthentication;
import org.springframework.vault.authentication.KubernetesAuthenticationOptions;
import org.springframework.vault.authentication.KubernetesServiceAccountTokenFile;
import org.springframework.vault.authentication.UsernamePasswordAuthentication;
import org.springframework.vault.authentication.UsernamePasswordAuthenticationOptions;
import org.springframework.vault.authentication.SessionManager;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.ClientHttpRequestFactoryFactory;
import org.springframework.vault.client.VaultClients;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.core.VaultTemplate;
import org.springframework.vault.support.ClientOptions;
import org.springframework.vault.support.SslConfiguration;
import org.springframework.vault.support.VaultToken;
import org.springframework.web.client.RestTemplate;

/**
 * Auto-configuration for Leasekeeper: one renewer per lease declared under
 * {@code leasekeeper.leases}, the Vault token's own renewer and a {@link VaultTemplate}
 * that uses it (unless the application has its own {@link VaultOperations}), a
 * {@link LeaseRegistry}, and the events.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "org.springframework.cloud.vault.config.VaultAutoConfiguration",
		"org.springframework.cloud.vault.config.VaultReactiveAutoConfiguration" })
@ConditionalOnClass(VaultOperations.class)
@Conditional(OnLeasekeeperEnabledCondition.class)
@EnableConfigurationProperties
@Import(LeaseRenewerRegistrar.class)
public final class LeasekeeperAutoConfiguration {

	@Bean
	@ConfigurationProperties("leasekeeper")
	LeasekeeperProperties leasekeeperProperties(Environment environment) {
		// the environment gives a failure report the origin of a nested value
		return new LeasekeeperProperties(environment);
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LeaseScheduler.class)
	ExecutorLeaseScheduler leasekeeperScheduler(LeasekeeperProperties properties, Environment environment) {
		int threads = properties.getIo().getThreads();
		if (environment.getProperty("spring.threads.virtual.enabled", Boolean.class, false)) {
			ExecutorService virtual = ExecutorLeaseScheduler.virtualThreads();
			if (virtual != null) {
				return new ExecutorLeaseScheduler(virtual);
			}
		}
		return new ExecutorLeaseScheduler(threads);
	}

	@Bean
	LeasekeeperEvents leasekeeperEvents() {
		return new LeasekeeperEvents();
	}

	@Bean
	@ConditionalOnMissingBean
	LeasekeeperExit leasekeeperExit(ApplicationContext context) {
		return (code) -> {
			int exitCode = (context instanceof ConfigurableApplicationContext configurable)
					? SpringApplication.exit(configurable, () -> code) : code;
			System.exit((exitCode != 0) ? exitCode : code);
		};
	}

	@Bean
	LeaseRenewerFactory leaseRenewerFactory(LeasekeeperProperties properties, LeaseScheduler scheduler,
			ApplicationEventPublisher publisher, LeasekeeperEvents events, LeasekeeperExit exit,
			ObjectProvider<LeaseConsumer> consumers, ObjectProvider<LeaseListenerProvider> listeners,
			LeaseListenerThreads listenerThreads) {
		return new LeaseRenewerFactory(properties, scheduler, publisher, events.executor(),
				new ExitOnLossListener(exit), consumers, listeners, listenerThreads);
	}

	@Bean
	Certificates leasekeeperCertificates(LeaseScheduler scheduler, ApplicationEventPublisher publisher,
			LeasekeeperEvents events) {
		return new Certificates(new CertificateBundles(scheduler.clock()), publisher, events.executor());
	}

	@Bean
	SmartLifecycle leasekeeperCertificateBundleUpdates(Certificates certificates) {
		return new CertificateBundleUpdates(certificates.bundles());
	}

	/**
	 * Registers the SSL bundle of each declared certificate when Boot's registry is made
	 * (the web server asks for it before the other beans are made): the certificate is
	 * issued first.
	 */
	@Bean
	SslBundleRegistrar leasekeeperCertificateBundleRegistrar(LeasekeeperProperties properties, BeanFactory beanFactory,
			Certificates certificates) {
		return (registry) -> properties.getCertificates().forEach((name, certificate) -> {
			ManagedLeaseRenewer renewer = beanFactory.getBean(LeaseRenewerRegistrar.certificateBeanName(name),
					ManagedLeaseRenewer.class);
			renewer.awaitFirstGrant();
			certificates.bundles().register(registry, name, certificate.sslBundleOr(name));
		});
	}

	@Bean(initMethod = "start", destroyMethod = "stop")
	SuspendDetector leasekeeperSuspendDetector(LeaseScheduler scheduler, LeaseRegistry registry) {
		return new SuspendDetector(scheduler, registry, new java.util.SplittableRandom());
	}

	@Bean
	LeaseListenerThreads leasekeeperListenerThreads() {
		return new LeaseListenerThreads();
	}

	@Bean
	@ConditionalOnMissingBean
	LeaseRegistry leaseRegistry(ObjectProvider<ManagedLeaseRenewer> renewers) {
		List<dev.leasekeeper.core.ManagedLease> leases = renewers.orderedStream()
			.map(ManagedLeaseRenewer::getLease)
			.toList();
		return new LeaseRegistry(leases);
	}

	@Bean
	static SingleOwnerVerifier leasekeeperSingleOwnerVerifier(ListableBeanFactory beanFactory,
			LeasekeeperProperties properties) {
		return new SingleOwnerVerifier(beanFactory, properties);
	}

	/**
	 * The application brings the token's owner (its own {@link SessionManager}): follow
	 * its logins.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(SessionManager.class)
	static class FollowSessionManagerConfiguration {

		@Bean
		FollowedToken leasekeeperFollowedToken(LeaseScheduler scheduler, LeasekeeperProperties properties,
				ObjectProvider<VaultOperations> vault) {
			return new FollowedToken("session", scheduler, properties.getToken().policy(properties.getDefaults()),
					() -> new FollowedTokenLookup(vault.getObject()).call());
		}

		@Bean
		SessionManagerFollower leasekeeperSessionManagerFollower(ListableBeanFactory beanFactory,
				FollowedToken followedToken) {
			return new SessionManagerFollower(beanFactory, followedToken);
		}

		@Bean
		@ConditionalOnMissingBean(VaultOperations.class)
		VaultTemplate leasekeeperVaultTemplate(LeasekeeperProperties properties, SessionManager sessionManager,
				ObjectProvider<SslBundles> sslBundles) {
			return new VaultTemplate(VaultEndpoint.from(properties.getVault().getUri()),
					LeasekeeperVaultConfiguration.requestFactory(properties, sslBundles), sessionManager);
		}

	}

	/**
	 * Leasekeeper's own Vault client, whose session token is the token Leasekeeper keeps
	 * alive.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean({ VaultOperations.class, SessionManager.class })
	static class LeasekeeperVaultConfiguration {

		private static final Log logger = LogFactory.getLog(LeasekeeperVaultConfiguration.class);

		@Bean(LeaseRenewerRegistrar.TOKEN_RENEWER)
		ManagedLeaseRenewer vaultTokenLeaseRenewer(LeasekeeperProperties properties, LeaseRenewerFactory factory,
				LeaseScheduler scheduler, ObjectProvider<ClientAuthentication> applicationAuthentication,
				ObjectProvider<SslBundles> sslBundles) {
			Vault vault = properties.getVault();
			VaultEndpoint endpoint = VaultEndpoint.from(vault.getUri());
			RestTemplate rest = VaultClients.createRestTemplate(endpoint, requestFactory(properties, sslBundles));
			// an application's own ClientAuthentication is used as it is
			ClientAuthentication authentication = applicationAuthentication
				.getIfUnique(() -> authentication(vault, rest));
			return factory.tokenLease(new TokenLeaseSource(authentication, rest, scheduler.clock()));
		}

		@Bean
		VaultTemplate leasekeeperVaultTemplate(LeasekeeperProperties properties,
				ManagedLeaseRenewer vaultTokenLeaseRenewer, ObjectProvider<SslBundles> sslBundles) {
			VaultEndpoint endpoint = VaultEndpoint.from(properties.getVault().getUri());
			return new VaultTemplate(endpoint, requestFactory(properties, sslBundles),
					new LeaseSessionManager(vaultTokenLeaseRenewer));
		}

		static ClientHttpRequestFactory requestFactory(LeasekeeperProperties properties,
				ObjectProvider<SslBundles> sslBundles) {
			Vault vault = properties.getVault();
			String bundleName = vault.getSslBundle();
			if (bundleName != null && !bundleName.isBlank()) {
				// TLS to Vault with a Spring Boot SSL bundle: its trust store for Vault's
				// certificate, its key store for a client certificate (cert login)
				SslBundles bundles = sslBundles.getIfAvailable();
				SslBundle bundle;
				try {
					if (bundles == null) {
						throw new NoSuchSslBundleException(bundleName, "no SSL bundles are configured");
					}
					bundle = bundles.getBundle(bundleName.strip());
				}
				catch (NoSuchSslBundleException ex) {
					throw new InvalidConfigurationPropertyValueException("leasekeeper.vault.ssl-bundle", bundleName,
							"must name an SSL bundle declared under spring.ssl.bundle (" + ex.getMessage() + ")");
				}
				HttpClient client = HttpClient.newBuilder()
					.sslContext(bundle.createSslContext())
					.connectTimeout(vault.getConnectionTimeout())
					.build();
				JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(client);
				factory.setReadTimeout(properties.defaultPolicy().attemptTimeout());
				return factory;
			}
			// calls are bounded by the attempt timeout, so that the engine never waits on
			// a hung connection
			ClientOptions options = new ClientOptions(vault.getConnectionTimeout(),
					properties.defaultPolicy().attemptTimeout());
			return ClientHttpRequestFactoryFactory.create(options, SslConfiguration.unconfigured());
		}

		private static ClientAuthentication authentication(Vault vault, RestTemplate rest) {
			return switch (vault.getAuthentication()) {
				case TOKEN -> {
					if (vault.getToken() == null || vault.getToken().isBlank()) {
						// a blank token was refused when bound: this one is set nowhere
						throw new InvalidConfigurationPropertyValueException("leasekeeper.vault.token", "",
								"must be set when leasekeeper.vault.authentication is token");
					}
					yield new TokenAuthentication(vault.getToken());
				}
				case APPROLE -> {
					String roleId = vault.getAppRole().getRoleId();
					String secretId = vault.getAppRole().getSecretId();
					if (roleId == null || roleId.isBlank()) {
						throw new InvalidConfigurationPropertyValueException("leasekeeper.vault.app-role.role-id", "",
								"must be set when leasekeeper.vault.authentication is approle");
					}
					AppRoleAuthenticationOptions.AppRoleAuthenticationOptionsBuilder options = AppRoleAuthenticationOptions
						.builder()
						.path(vault.getAppRole().getPath())
						.roleId(AppRoleAuthenticationOptions.RoleId.provided(roleId));
					if (secretId != null && !secretId.isBlank()) {
						options.secretId(AppRoleAuthenticationOptions.SecretId.provided(secretId));
					}
					yield new AppRoleAuthentication(options.build(), rest);
				}
				case USERPASS -> new UsernamePasswordAuthentication(UsernamePasswordAuthenticationOptions.builder()
					.path(vault.getUserpass().getPath())
					.username(vault.getUserpass().getUsername())
					.password(vault.getUserpass().getPassword())
					.build(), rest);
				case CERT -> {
					// leasekeeper.vault.ssl-bundle, its client certificate, was validated
					ClientCertificateAuthenticationOptions.ClientCertificateAuthenticationOptionsBuilder options = ClientCertificateAuthenticationOptions
						.builder()
						.path(vault.getCert().getPath());
					if (vault.getCert().getName() != null && !vault.getCert().getName().isBlank()) {
						options.role(vault.getCert().getName());
					}
					yield new ClientCertificateAuthentication(options.build(), rest);
				}
				case CUBBYHOLE -> {
					logger.warn("leasekeeper.vault.authentication is cubbyhole: the wrapping token unwraps once, so"
							+ " Leasekeeper renews the token it holds but cannot log in again once that token reaches"
							+ " its max TTL or is revoked; give the wrapped token a period (a periodic token renews"
							+ " for ever) or use a login method that can be repeated");
					yield new CubbyholeAuthentication(CubbyholeAuthenticationOptions.builder()
						.initialToken(VaultToken.of(vault.getCubbyhole().getWrappedToken()))
						.wrapped()
						.build(), rest);
				}
				case GITHUB -> new GitHubAuthentication(GitHubAuthenticationOptions.builder()
					.path(vault.getGithub().getPath())
					.token(vault.getGithub().getToken())
					.build(), rest);
				case JWT -> {
					LeasekeeperProperties.Jwt jwt = vault.getJwt();
					Path file = jwt.getTokenFile();
					String token = jwt.getToken();
					// a file is read at every login: its issuer rotates the token
					yield new JwtAuthentication(JwtAuthenticationOptions.builder()
						.path(jwt.getPath())
						.role(jwt.getRole())
						.jwtSupplier((file != null) ? () -> readJwt(file) : () -> token)
						.build(), rest);
				}
				case KUBERNETES -> {
					Kubernetes kubernetes = vault.getKubernetes();
					// the supplier reads the file at every login: Kubernetes rotates the
					// projected token, and a stale one is refused
					yield new KubernetesAuthentication(KubernetesAuthenticationOptions.builder()
						.path(kubernetes.getPath())
						.role(kubernetes.getRole())
						.jwtSupplier(
								new KubernetesServiceAccountTokenFile(kubernetes.getServiceAccountTokenFile().toFile()))
						.build(), rest);
				}
			};
		}

		private static String readJwt(Path file) {
			try {
				return Files.readString(file).strip();
			}
			catch (IOException ex) {
				// the message names the file, never its content
				throw new IllegalStateException("Cannot read the JWT from " + file, ex);
			}
		}

	}

}
