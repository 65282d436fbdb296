package dev.leasekeeper.autoconfigure;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import dev.leasekeeper.actuate.LeasesEndpoint;
import dev.leasekeeper.actuate.LeasesHealthIndicator;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.metrics.LeaseMetrics;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A whole life — obtain, renew, ceiling, rotation with a pool swap, outage, token
 * re-login, shutdown — with every log line (Leasekeeper's at DEBUG, everything else at
 * INFO), the actuator JSON, the health details, every event's string and every meter tag
 * captured: none holds a password, token, accessor or secret id the simulator issued.
 */
class SecretLeakTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.withPostgres()
		.databaseRole("orders", Duration.ofSeconds(6), Duration.ofSeconds(9),
				"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{name}}")
		.configure((builder) -> builder.appRole("worker", "worker-role", "worker-secret-" + System.nanoTime(),
				Duration.ofSeconds(4), Duration.ofSeconds(8)))
		.build();

	@Test
	void noIssuedSecretReachesALogLineAnEventAMeterTagOrTheActuator() throws Exception {
		try (Connection admin = vault.adminDataSource().getConnection();
				Statement statement = admin.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS items (id int)");
		}
		String secretId = vault.simulator()
			.issuedSecrets()
			.stream()
			.filter((s) -> s.startsWith("worker-secret-"))
			.findFirst()
			.orElseThrow();
		ListAppender<ILoggingEvent> logs = new ListAppender<>();
		Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
		Logger leasekeeper = (Logger) LoggerFactory.getLogger("dev.leasekeeper");
		Level rootLevel = root.getLevel();
		Level leasekeeperLevel = leasekeeper.getLevel();
		logs.start();
		root.addAppender(logs);
		root.setLevel(Level.INFO);
		leasekeeper.setLevel(Level.DEBUG);
		List<String> captured = new ArrayList<>();
		try {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class,
						LeasekeeperDataSourceAutoConfiguration.class, LeasekeeperMetricsAutoConfiguration.class,
						LeasekeeperActuatorAutoConfiguration.class, DataSourceAutoConfiguration.class))
				.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class, Meters.class)
				.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri(),
						"leasekeeper.vault.authentication=approle", "leasekeeper.vault.app-role.role-id=worker-role",
						"leasekeeper.vault.app-role.secret-id=" + secretId,
						"leasekeeper.leases.orders-db.path=database/creds/orders",
						"leasekeeper.leases.orders-db.datasource=true", "spring.datasource.url=" + vault.jdbcUrl(),
						"leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.expiry-buffer=300ms",
						"leasekeeper.defaults.attempt-timeout=500ms",
						"leasekeeper.defaults.retry.initial-interval=100ms",
						"leasekeeper.defaults.retry.max-interval=200ms")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					MeterRegistry meters = context.getBean(MeterRegistry.class);
					context.getBean(LeaseMetrics.class).bindTo(meters);
					LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
					LeaseRenewer token = context.getBean("vaultTokenLeaseRenewer", LeaseRenewer.class);
					try (Connection connection = context.getBean(javax.sql.DataSource.class).getConnection()) {
						connection.createStatement().execute("SELECT count(*) FROM items");
					}
					// token re-login (max TTL 8 s) and the lease rotated with its pool
					await().atMost(Duration.ofSeconds(15))
						.until(() -> token.current().generation() >= 2 && orders.current().generation() >= 2);
					vault.simulator().outage(true);
					try {
						// whatever acts next (a renewal, a rotation, the token) meets the
						// outage
						orders.renewNow();
						await().atMost(Duration.ofSeconds(8))
							.until(() -> meters.find(LeaseMetrics.RENEWALS)
								.tag("outcome", "transient-failure")
								.counters()
								.stream()
								.mapToDouble(io.micrometer.core.instrument.Counter::count)
								.sum() > 0);
					}
					finally {
						vault.simulator().outage(false);
					}
					LeasesEndpoint endpoint = context.getBean(LeasesEndpoint.class);
					captured.add(JsonMapper.builder().build().writeValueAsString(endpoint.leases()));
					captured.add(context.getBean(LeasesHealthIndicator.class).health(true).toString());
					context.getBean(LeasekeeperAutoConfigurationTests.Events.class).received
						.forEach((event) -> captured.add(event.toString()));
					assertThat(context.getBean(LeasekeeperAutoConfigurationTests.Events.class).received).isNotEmpty();
					for (Meter meter : meters.getMeters()) {
						captured.add(meter.getId().getName());
						for (Tag tag : meter.getId().getTags()) {
							captured.add(tag.getKey() + "=" + tag.getValue());
						}
					}
					captured.add(orders.current().toString());
					captured.add(token.current().toString());
				});
		}
		finally {
			root.detachAppender(logs);
			root.setLevel(rootLevel);
			leasekeeper.setLevel(leasekeeperLevel);
		}
		for (ILoggingEvent event : logs.list) {
			captured.add(event.getFormattedMessage());
			// the messages of its exception and their causes (some have none: an
			// InterruptedException of a pool closed at shutdown)
			for (IThrowableProxy thrown = event.getThrowableProxy(); thrown != null; thrown = thrown.getCause()) {
				if (thrown.getMessage() != null) {
					captured.add(thrown.getMessage());
				}
			}
		}
		Set<String> secrets = vault.simulator().issuedSecrets();
		assertThat(secrets).hasSizeGreaterThan(6);
		assertThat(logs.list).anyMatch((event) -> event.getFormattedMessage().contains("rotated"));
		for (String text : captured) {
			for (String secret : secrets) {
				assertThat(text).as("captured text").doesNotContain(secret);
			}
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Meters {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
