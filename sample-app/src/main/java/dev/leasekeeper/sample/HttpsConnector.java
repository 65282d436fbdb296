package dev.leasekeeper.sample;

import java.util.Map;

import org.apache.catalina.connector.Connector;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.tomcat.SslConnectorCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.Ssl;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/**
 * A second connector, on HTTPS, beside the dashboard's HTTP one: it serves the same
 * application with the certificate {@code leasekeeper.certificates.web} obtains from
 * Vault's PKI engine, through the SSL bundle {@code web} — re-issued by Leasekeeper and
 * reloaded by Tomcat without a restart, as {@code server.ssl.bundle=web} would do for the
 * main connector.
 */
@Component
public class HttpsConnector implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {

	private static final Log logger = LogFactory.getLog(HttpsConnector.class);

	private final SslBundles bundles;

	private final int port;

	private final Connector connector = new Connector();

	HttpsConnector(SslBundles bundles, @Value("${sample.https.port:8443}") int port) {
		this.bundles = bundles;
		this.port = port;
	}

	@Override
	public void customize(TomcatServletWebServerFactory factory) {
		this.connector.setPort(this.port);
		this.connector.setScheme("https");
		this.connector.setSecure(true);
		SslConnectorCustomizer ssl = new SslConnectorCustomizer(logger, this.connector, Ssl.ClientAuth.NONE);
		ssl.customize(this.bundles.getBundle("web"), Map.of());
		// each certificate Leasekeeper puts into the bundle is served to new connections
		this.bundles.addBundleUpdateHandler("web", (bundle) -> ssl.update(null, bundle));
		factory.addAdditionalConnectors(this.connector);
	}

	/**
	 * Return the port the HTTPS connector listens on, once started.
	 * @return the port
	 */
	public int getLocalPort() {
		return this.connector.getLocalPort();
	}

}
