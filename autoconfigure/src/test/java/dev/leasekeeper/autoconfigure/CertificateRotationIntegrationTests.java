package dev.leasekeeper.autoconfigure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.apache.tomcat.util.net.SSLUtil;
import org.apache.tomcat.util.net.jsse.JSSEImplementation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import dev.leasekeeper.actuate.LeaseActivity;
import dev.leasekeeper.actuate.LeasesEndpoint;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.event.CertificateRenewedEvent;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.metrics.CertificateMetrics;
import dev.leasekeeper.testkit.VaultSimulatorExtension;
import dev.leasekeeper.tls.CertificateSource;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A web server on HTTPS whose certificate comes from Vault's PKI engine (the simulator's,
 * real certificates) with a validity of 20 s and every default of the engine: for 40 s a
 * client that trusts only the CA opens a new TLS connection every 200 ms and sees the
 * certificate re-issued and hot-swapped — several serials, no failed handshake, no failed
 * request — while the replaced certificates are revoked and the private key reaches no
 * log line, event, meter or actuator answer.
 */
class CertificateRotationIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.pkiRole("web", Duration.ofSeconds(20), Duration.ofMinutes(5), "example.test"))
		.build();

	@Test
	void aServerOnAVaultCertificateServesEachReissueWithoutAFailedHandshake() throws Exception {
		try (CapturedLogs logs = new CapturedLogs(); ConfigurableApplicationContext context = start()) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			TrustManagerFactory trust = trusting(vault.simulator().caCertificate());
			Set<String> served = new LinkedHashSet<>();
			List<String> failures = new ArrayList<>();
			int requests = 0;
			Instant end = Instant.now().plus(Duration.ofSeconds(40));
			while (Instant.now().isBefore(end)) {
				requests++;
				try {
					served.add(request(trust, port));
				}
				catch (IOException ex) {
					failures.add(ex.toString());
				}
				Thread.sleep(200);
			}
			assertThat(failures).as("failed handshakes or requests out of %d", requests).isEmpty();
			assertThat(served).as("serials served").hasSizeGreaterThanOrEqualTo(2);
			assertThat(vault.simulator().issuedCertificates()).containsAll(served);
			LeaseRenewer web = context.getBean("webCertificateRenewer", LeaseRenewer.class);
			assertThat(web.current().state()).isEqualTo(LeaseState.CEILING);
			Events events = context.getBean(Events.class);
			assertThat(events.renewed).isNotEmpty()
				.allSatisfy((event) -> assertThat(event.getLeaseName()).isEqualTo("web"));
			assertThat(events.renewed).extracting(CertificateRenewedEvent::getSerialNumber)
				.containsAnyElementsOf(served);
			assertThat(events.lost).isEmpty();
			// every certificate replaced is revoked within its remaining validity
			String first = served.iterator().next();
			await().atMost(Duration.ofSeconds(25)).until(() -> vault.simulator().isCertificateRevoked(first));
			String privateKey = (String) web.current().data().get("private_key");
			assertNoKey(logs.text(), privateKey);
			assertNoKey(events.renewed.toString(), privateKey);
			assertMetricsAndActuator(context, web, privateKey);
		}
	}

	/**
	 * A certificate re-issued while Tomcat's connector binds (made to happen then: the
	 * first {@code SSLContext} Tomcat makes waits for a re-issue) is served once the
	 * application has started. Tomcat takes an SSL bundle update that arrives while it
	 * binds without making an {@code SSLContext} for it: it served no TLS until the next
	 * re-issue.
	 */
	@Test
	void aCertificateReissuedWhileTheConnectorBindsIsServedOnceTheApplicationHasStarted() throws Exception {
		try (ConfigurableApplicationContext context = start(ReissueWhileTheConnectorBinds.class)) {
			LeaseRenewer web = context.getBean("webCertificateRenewer", LeaseRenewer.class);
			assertThat(ReissuingJsse.reissuedTo).as("generation re-issued while binding").isEqualTo(2);
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			String served = request(trusting(vault.simulator().caCertificate()), port);
			assertThat(served).isNotEqualTo(ReissuingJsse.replaced)
				.isEqualTo(web.current().data().get(CertificateSource.SERIAL_NUMBER));
		}
	}

	@Test
	void aCertificateVaultRefusesStopsStartUpNamingItAndVaultsReason() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class, SslAutoConfiguration.class))
			.withPropertyValues(vault.propertyValues())
			// a token that may issue from any role: Vault's own refusal, not the policy's
			.withPropertyValues("leasekeeper.vault.token=" + vault.simulator().rootToken(),
					"leasekeeper.certificates.web.path=pki/issue/billing",
					"leasekeeper.certificates.web.common-name=orders.example.test")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("'web'")
					.hasMessageContaining("pki/issue/billing")
					.hasMessageContaining("unknown role: billing");
			});
	}

	@Test
	void aCertificateThatCouldNotBeReissuedBeforeItsNotAfterIsLost() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class, SslAutoConfiguration.class))
			.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class)
			.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.certificates.short.path=pki/issue/web",
					"leasekeeper.certificates.short.common-name=orders.example.test",
					"leasekeeper.certificates.short.ttl=6s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeaseRenewer renewer = context.getBean("shortCertificateRenewer", LeaseRenewer.class);
				assertThat(renewer.current().generation()).isEqualTo(1);
				vault.simulator().outage(true);
				try {
					LeasekeeperAutoConfigurationTests.Events events = context
						.getBean(LeasekeeperAutoConfigurationTests.Events.class);
					await().atMost(Duration.ofSeconds(15)).until(() -> !events.of(LeaseLostEvent.class).isEmpty());
					assertThat(events.of(LeaseLostEvent.class).get(0).getLeaseName()).isEqualTo("short");
					assertThat(renewer.current().state().holdsGrant()).isFalse();
				}
				finally {
					vault.simulator().outage(false);
				}
			});
	}

	private static void assertMetricsAndActuator(ConfigurableApplicationContext context, LeaseRenewer web,
			String privateKey) throws Exception {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		context.getBean(CertificateMetrics.class).bindTo(registry);
		double remaining = registry.get(CertificateMetrics.REMAINING).tag("certificate", "web").gauge().value();
		assertThat(remaining).isBetween(1.0, 20.0);
		assertThat(registry.get(CertificateMetrics.ROTATIONS).tag("certificate", "web").functionCounter().count())
			.isGreaterThanOrEqualTo(1);
		LeasesEndpoint endpoint = new LeasesEndpoint(Map.of("web", web), new LeaseActivity(Instant::now));
		// read between two re-issues: while one is in flight no next action is planned
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			Object serial = web.current().data().get(CertificateSource.SERIAL_NUMBER);
			LeasesEndpoint.LeaseDescriptor descriptor = endpoint.lease("web");
			assertThat(descriptor.kind()).isEqualTo("certificate");
			assertThat(descriptor.path()).isEqualTo("pki/issue/web");
			assertThat(descriptor.serialNumber()).isEqualTo(serial);
			assertThat(descriptor.notAfter()).isAfter(Instant.now());
			assertThat(descriptor.nextRenewalAt()).isNotNull().isBefore(descriptor.notAfter());
		});
		assertNoKey(JsonMapper.builder().build().writeValueAsString(endpoint.leases()), privateKey);
		assertNoKey(web.current().toString(), privateKey);
	}

	private static void assertNoKey(String text, String privateKey) {
		assertThat(text).doesNotContain("PRIVATE KEY").doesNotContain(privateKey.substring(0, 40));
	}

	private static ConfigurableApplicationContext start(Class<?>... configurations) {
		SpringApplication application = new SpringApplication(HttpsApplication.class);
		application.addPrimarySources(List.of(configurations));
		application.setWebApplicationType(WebApplicationType.SERVLET);
		List<String> arguments = new ArrayList<>();
		for (String property : vault.propertyValues()) {
			arguments.add("--" + property);
		}
		arguments.addAll(List.of("--server.port=0", "--server.ssl.bundle=web",
				"--leasekeeper.certificates.web.path=pki/issue/web",
				"--leasekeeper.certificates.web.common-name=localhost",
				"--leasekeeper.certificates.web.alt-names=orders.example.test",
				"--leasekeeper.certificates.web.ip-sans=127.0.0.1"));
		return application.run(arguments.toArray(String[]::new));
	}

	/**
	 * One request on a new TLS connection with a full handshake (a new client context: no
	 * session to resume, so the certificate served is validated every time), the host
	 * name checked: the serial served.
	 */
	private static String request(TrustManagerFactory trust, int port) throws Exception {
		SSLContext client = SSLContext.getInstance("TLS");
		client.init(null, trust.getTrustManagers(), null);
		try (SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket("localhost", port)) {
			socket.setSoTimeout(5000);
			SSLParameters parameters = socket.getSSLParameters();
			parameters.setEndpointIdentificationAlgorithm("HTTPS");
			socket.setSSLParameters(parameters);
			socket.startHandshake();
			X509Certificate served = (X509Certificate) socket.getSession().getPeerCertificates()[0];
			OutputStream out = socket.getOutputStream();
			out.write("GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			String status = in.readLine();
			if (status == null || !status.startsWith("HTTP/1.1 200")) {
				throw new IOException("answered " + status);
			}
			return colon(served.getSerialNumber().toString(16));
		}
	}

	private static String colon(String hex) {
		String even = (hex.length() % 2 == 1) ? "0" + hex : hex;
		StringBuilder result = new StringBuilder();
		for (int i = 0; i < even.length(); i += 2) {
			result.append((i > 0) ? ":" : "").append(even, i, i + 2);
		}
		return result.toString();
	}

	private static TrustManagerFactory trusting(X509Certificate ca) throws Exception {
		KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
		trust.load(null, null);
		trust.setCertificateEntry("ca", ca);
		TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		trustManagers.init(trust);
		return trustManagers;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LeasekeeperAutoConfiguration.class, LeasekeeperMetricsAutoConfiguration.class,
			SslAutoConfiguration.class, TomcatServletWebServerAutoConfiguration.class })
	@Import(Events.class)
	static class HttpsApplication {

		@Bean
		ServletRegistrationBean<HttpServlet> hello() {
			return new ServletRegistrationBean<>(new HttpServlet() {

				@Override
				protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
					response.setContentType("text/plain");
					response.getWriter().write("hello");
				}

			}, "/hello");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ReissueWhileTheConnectorBinds {

		@Bean
		TomcatConnectorCustomizer reissueWhileTheConnectorBinds(BeanFactory beans) {
			return (connector) -> {
				ReissuingJsse.reissue = () -> {
					LeaseRenewer web = beans.getBean("webCertificateRenewer", LeaseRenewer.class);
					long generation = web.current().generation();
					ReissuingJsse.replaced = web.current().data().get(CertificateSource.SERIAL_NUMBER);
					web.rotateNow();
					await().atMost(Duration.ofSeconds(20)).until(() -> web.current().generation() > generation);
					ReissuingJsse.reissuedTo = web.current().generation();
				};
				((AbstractHttp11Protocol<?>) connector.getProtocolHandler())
					.setSslImplementationName(ReissuingJsse.class.getName());
			};
		}

	}

	/**
	 * Tomcat's JSSE, which re-issues the certificate the first time it is asked for an
	 * {@code SSLContext}: while the connector binds.
	 */
	public static class ReissuingJsse extends JSSEImplementation {

		static volatile @Nullable Runnable reissue;

		static volatile long reissuedTo;

		static volatile @Nullable Object replaced;

		@Override
		public SSLUtil getSSLUtil(SSLHostConfigCertificate certificate) {
			Runnable once = reissue;
			reissue = null;
			if (once != null) {
				once.run();
			}
			return super.getSSLUtil(certificate);
		}

	}

	static class Events {

		final List<CertificateRenewedEvent> renewed = new CopyOnWriteArrayList<>();

		final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();

		@org.springframework.context.event.EventListener
		void on(CertificateRenewedEvent event) {
			this.renewed.add(event);
		}

		@org.springframework.context.event.EventListener
		void on(LeaseLostEvent event) {
			this.lost.add(event);
		}

	}

}
