package dev.leasekeeper.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.RenewalPolicy;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

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
				"database/creds/orders", "already declared by leasekeeper.leases.orders-db.path");
	}

	@Test
	void twoDatasourceLeasesAreRefused() {
		assertInvalid(withLease("leasekeeper.leases.orders-db.datasource=true",
				"leasekeeper.leases.other.path=database/creds/other", "leasekeeper.leases.other.datasource=true"),
				"leasekeeper.leases.other.datasource", "true", "only one lease may feed spring.datasource");
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
		assertInvalid(this.runner.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri()),
				"leasekeeper.vault.token", "", "must be set");
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
	void propertyDefaultsMatchTheEngineDefaults() {
		LeasekeeperProperties.Defaults defaults = new LeasekeeperProperties().getDefaults();
		RenewalPolicy engine = RenewalPolicy.defaults();
		assertThat(defaults.getRenewAt()).isEqualTo(engine.renewAt());
		assertThat(defaults.getFirstRenewalSpread()).isEqualTo(engine.firstRenewalSpread());
		assertThat(defaults.getJitter()).isEqualTo(engine.jitter());
		assertThat(defaults.getExpiryBuffer()).isEqualTo(engine.expiryBuffer());
		assertThat(defaults.getAttemptTimeout()).isEqualTo(engine.attemptTimeout());
		assertThat(defaults.getRetry().getInitialInterval()).isEqualTo(engine.retryInitialInterval());
		assertThat(defaults.getRetry().getMultiplier()).isEqualTo(engine.retryMultiplier());
		assertThat(defaults.getRetry().getMaxInterval()).isEqualTo(engine.retryMaxInterval());
		assertThat(defaults.getRetry().getJitter()).isEqualTo(engine.retryJitter());
	}

	private static void assertInvalid(ApplicationContextRunner runner, String property, String value, String allowed) {
		runner.run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			InvalidLeasekeeperPropertyException cause = findCause(failure, InvalidLeasekeeperPropertyException.class);
			assertThat(cause.getProperty()).isEqualTo(property);
			assertThat(cause.getValue()).isEqualTo(value);
			assertThat(cause.getAllowed()).contains(allowed);
			FailureAnalysis analysis = new InvalidLeasekeeperPropertyFailureAnalyzer().analyze(failure);
			assertThat(analysis.getDescription()).contains("'" + property + "'", "'" + value + "'", allowed);
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
