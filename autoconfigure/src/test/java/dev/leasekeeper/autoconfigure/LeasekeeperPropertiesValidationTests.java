package dev.leasekeeper.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.leasekeeper.core.RenewalPolicy;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.FileSystemResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every invalid value stops start-up with a message naming the property, the value and
 * what is allowed.
 */
class LeasekeeperPropertiesValidationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class));

	private ApplicationContextRunner withLease(String... more) {
		return this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders")
			.withPropertyValues(more);
	}

	@Test
	void renewAtOfZeroOrOneIsRefusedNamingTheLeasesProperty() {
		assertInvalid(withLease("leasekeeper.leases.orders-db.renew-at=0"), "leasekeeper.leases.orders-db.renew-at",
				"0.0", "greater than 0 and less than 1");
		assertInvalid(withLease("leasekeeper.leases.orders-db.renew-at=1"), "leasekeeper.leases.orders-db.renew-at",
				"1.0", "greater than 0 and less than 1");
	}

	@Test
	void anInvalidDefaultIsRefusedNamingTheDefaultsProperty() {
		assertInvalid(withLease("leasekeeper.defaults.renew-at=1.5"), "leasekeeper.defaults.renew-at", "1.5",
				"greater than 0 and less than 1");
	}

	@Test
	void negativeDurationsAreRefused() {
		assertInvalid(withLease("leasekeeper.leases.orders-db.expiry-buffer=-1s"),
				"leasekeeper.leases.orders-db.expiry-buffer", "PT-1S", "zero or a positive duration");
		assertInvalid(withLease("leasekeeper.defaults.retry.initial-interval=-5ms"),
				"leasekeeper.defaults.retry.initial-interval", "PT-0.005S", "positive duration");
		assertInvalid(withLease("leasekeeper.leases.orders-db.increment=-1h"), "leasekeeper.leases.orders-db.increment",
				"PT-1H", "positive duration");
	}

	@Test
	void jitterAboveHalfIsRefused() {
		assertInvalid(withLease("leasekeeper.leases.orders-db.jitter=0.6"), "leasekeeper.leases.orders-db.jitter",
				"0.6", "between 0 and 0.5");
	}

	@Test
	void anEmptyPathIsRefused() {
		assertInvalid(
				this.runner.withPropertyValues(vault.propertyValues())
					.withPropertyValues("leasekeeper.leases.orders-db.path="),
				"leasekeeper.leases.orders-db.path", "", "Vault path");
	}

	@Test
	void thePathDeclaredTwiceIsRefused() {
		assertInvalid(withLease("leasekeeper.leases.again.path=database/creds/orders"), "leasekeeper.leases.again.path",
				"database/creds/orders", "also declared by leasekeeper.leases.orders-db.path");
	}

	@Test
	void twoDatasourceLeasesAreRefused() {
		assertInvalid(withLease("leasekeeper.leases.orders-db.datasource=true",
				"leasekeeper.leases.other.path=database/creds/other", "leasekeeper.leases.other.datasource=true"),
				"leasekeeper.leases.other.datasource", "true", "also named by leasekeeper.leases.orders-db.datasource");
	}

	@Test
	void anUnknownEnumValueFailsBindingNamingTheProperty() {
		withLease("leasekeeper.leases.orders-db.on-ceiling=sometimes").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("sometimes");
			assertThat(context.getStartupFailure()).hasMessageContaining("leasekeeper.leases.orders-db.on-ceiling");
		});
	}

	@Test
	void tokenAuthenticationWithoutATokenIsRefused() {
		FailureReport report = new FailureReport();
		this.runner.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri())
			.withInitializer(report)
			.run((context) -> assertThat(report.of(context.getStartupFailure())).contains(
					"Invalid value '' for configuration property 'leasekeeper.vault.token'",
					"must be set when leasekeeper.vault.authentication is token"));
	}

	@Test
	void aBlankTokenIsRefusedWhenBoundWithoutRepeatingAnyToken() {
		FailureReport report = new FailureReport();
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.vault.token= ")
			.withInitializer(report)
			.run((context) -> assertThat(report.of(context.getStartupFailure()))
				.contains("Property: leasekeeper.vault.token", "Value: \"\"",
						"Origin: \"leasekeeper.vault.token\" from property source")
				.doesNotContain(vault.applicationToken()));
	}

	@Test
	void aPathTheTokensPolicyDoesNotNameFailsStartUpNamingTheLeaseThePathAndVaultsAnswer() {
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/nope")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				LeaseUnavailableException cause = findCause(failure, LeaseUnavailableException.class);
				assertThat(cause.getMessage()).contains("'orders-db'", "database/creds/nope", "permission denied");
				FailureAnalysis analysis = new LeaseUnavailableFailureAnalyzer().analyze(failure);
				assertThat(analysis.getAction()).contains("may read 'database/creds/nope'", "leasekeeper.fail-fast");
			});
	}

	@Test
	void anUnknownRoleFailsStartUpNamingTheLeaseThePathAndVaultsAnswer() {
		vault.simulator().writePolicy("any-database-role", "path \"database/creds/*\" { capabilities = [\"read\"] }");
		String token = vault.simulator().createToken(null, "any-database-role");
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.vault.token=" + token,
					"leasekeeper.leases.orders-db.path=database/creds/nope")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				LeaseUnavailableException cause = findCause(failure, LeaseUnavailableException.class);
				assertThat(cause.getMessage()).contains("'orders-db'", "database/creds/nope", "unknown role: nope");
				FailureAnalysis analysis = new LeaseUnavailableFailureAnalyzer().analyze(failure);
				assertThat(analysis.getAction()).contains("leasekeeper.fail-fast");
			});
	}

	@Test
	void settingsLeftUnsetEverywhereAreTheEngineDefaults() {
		LeasekeeperProperties properties = new LeasekeeperProperties();
		assertThat(properties.defaultPolicy()).isEqualTo(RenewalPolicy.defaults());
		assertThat(new LeasekeeperProperties.Lease().policy(properties.getDefaults()))
			.isEqualTo(RenewalPolicy.defaults());
	}

	@Test
	void aLeaseInheritsWhatItLeavesUnsetFromTheDefaultsAndKeepsWhatItSets() {
		LeasekeeperProperties.LeaseSettings defaults = new LeasekeeperProperties.LeaseSettings();
		defaults.setRenewAt(0.5);
		defaults.getRetry().setMaxInterval(Duration.ofSeconds(7));
		defaults.setRevokeOnShutdown(false);
		LeasekeeperProperties.Lease lease = new LeasekeeperProperties.Lease();
		lease.setRenewAt(0.8);
		RenewalPolicy policy = lease.policy(defaults);
		assertThat(policy.renewAt()).isEqualTo(0.8);
		assertThat(policy.retryMaxInterval()).isEqualTo(Duration.ofSeconds(7));
		assertThat(policy.attemptTimeout()).isEqualTo(RenewalPolicy.DEFAULT_ATTEMPT_TIMEOUT);
		assertThat(lease.revokeOnShutdown(defaults)).isFalse();
		assertThat(lease.revokeReplaced(defaults)).isTrue();
	}

	@Test
	void aLeasesJitterAboveTheDefaultRenewAtIsRefusedNamingTheLeasesProperty() {
		assertInvalid(withLease("leasekeeper.defaults.renew-at=0.3", "leasekeeper.leases.orders-db.jitter=0.4"),
				"leasekeeper.leases.orders-db.jitter", "0.4", "must be less than renew-at (0.3)");
		assertInvalid(withLease("leasekeeper.defaults.jitter=0.4", "leasekeeper.leases.orders-db.renew-at=0.3"),
				"leasekeeper.defaults.jitter", "0.4", "must be less than renew-at (0.3)");
	}

	@Test
	void theReportSaysInWhichFileAndOnWhichLineABadValueIsSet(@TempDir Path directory) throws IOException {
		Path yaml = directory.resolve("application.yml");
		Files.writeString(yaml, String.join("\n", "leasekeeper:", "  leases:", "    orders-db:",
				"      path: database/creds/orders", "      renew-at: 1.5", ""));
		PropertySource<?> file = new YamlPropertySourceLoader().load("application.yml", new FileSystemResource(yaml))
			.get(0);
		FailureReport report = new FailureReport();
		this.runner.withPropertyValues(vault.propertyValues())
			.withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(file))
			.withInitializer(report)
			.run((context) -> assertThat(report.of(context.getStartupFailure())).contains(
					"Property: leasekeeper.leases.orders-db.renew-at", "Value: \"1.5\"",
					"Origin: file [" + yaml + "] - 5:17", "Reason: must be greater than 0 and less than 1"));
	}

	@Test
	void theReportNamesTheEnvironmentVariableABadValueCameFrom() {
		Map<String, Object> variables = Map.of("LEASEKEEPER_LEASES_ORDERSDB_PATH", "database/creds/orders",
				"LEASEKEEPER_LEASES_ORDERSDB_RETRY_MULTIPLIER", "0.5");
		FailureReport report = new FailureReport();
		this.runner.withPropertyValues(vault.propertyValues())
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource("systemEnvironment", variables)))
			.withInitializer(report)
			.run((context) -> assertThat(report.of(context.getStartupFailure())).contains(
					"Property: leasekeeper.leases.ordersdb.retry.multiplier", "Value: \"0.5\"",
					"LEASEKEEPER_LEASES_ORDERSDB_RETRY_MULTIPLIER", "Reason: must be between 1 and 100"));
	}

	@Test
	void everyConstraintViolationOfOneBindingIsReported() {
		FailureReport report = new FailureReport();
		withLease("leasekeeper.leases.orders-db.renew-at=0", "leasekeeper.defaults.attempt-timeout=0s")
			.withInitializer(report)
			.run((context) -> assertThat(report.of(context.getStartupFailure()))
				.contains("leasekeeper.leases.orders-db.renew-at", "leasekeeper.defaults.attempt-timeout"));
	}

	private static void assertInvalid(ApplicationContextRunner runner, String property, String value, String allowed) {
		FailureReport report = new FailureReport();
		runner.withInitializer(report).run((context) -> {
			assertThat(context).hasFailed();
			String text = report.of(context.getStartupFailure());
			assertThat(text).containsAnyOf("Property: " + property, "property '" + property + "'");
			assertThat(text).containsAnyOf("Value: \"" + value + "\"", "value '" + value + "'");
			assertThat(text).contains(allowed);
			assertThat(text).containsAnyOf("Origin: \"" + property + "\" from property source",
					"originating from '\"" + property + "\" from property source");
		});
	}

	private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
		for (Throwable candidate = failure; candidate != null; candidate = candidate.getCause()) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in " + failure);
	}

}
