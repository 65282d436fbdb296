package dev.leasekeeper.metrics;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.autoconfigure.LeasekeeperAutoConfiguration;
import dev.leasekeeper.autoconfigure.LeasekeeperMetricsAutoConfiguration;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Meter values after scripted scenarios against the simulator.
 */
class LeaseMetricsIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("short", Duration.ofSeconds(6), Duration.ofSeconds(9)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(LeasekeeperAutoConfiguration.class, LeasekeeperMetricsAutoConfiguration.class))
		.withPropertyValues(vault.propertyValues())
		.withPropertyValues("leasekeeper.leases.short-db.path=database/creds/short",
				"leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.expiry-buffer=300ms",
				"leasekeeper.defaults.attempt-timeout=500ms", "leasekeeper.defaults.retry.initial-interval=100ms",
				"leasekeeper.defaults.retry.max-interval=200ms");

	@Test
	void everyMeterIsRegisteredUpFrontWithADescription() {
		this.runner.run((context) -> {
			MeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(LeaseMetrics.class).bindTo(registry);
			for (String outcome : LeaseMetrics.OUTCOMES) {
				assertThat(registry.get(LeaseMetrics.RENEWALS)
					.tags("lease", "short-db", "outcome", outcome)
					.counter()
					.count()).isZero();
			}
			for (String cause : LeaseMetrics.CAUSES) {
				assertThat(registry.get(LeaseMetrics.ROTATIONS)
					.tags("lease", "short-db", "cause", cause)
					.counter()
					.count()).isZero();
			}
			assertThat(registry.get(LeaseMetrics.RETRIES).tag("lease", "short-db").counter().count()).isZero();
			assertThat(registry.get(LeaseMetrics.LOST).tag("lease", "short-db").counter().count()).isZero();
			assertThat(registry.get(LeaseMetrics.TIMER_LATENESS).tag("lease", "short-db").timer().count()).isZero();
			assertThat(registry.get(LeaseMetrics.REAUTHENTICATIONS).tag("lease", "short-db").counter().count())
				.isZero();
			assertThat(registry.get(LeaseMetrics.LEASE_REMAINING).tag("lease", "short-db").gauge().value())
				.isBetween(4.0, 6.0);
			assertThat(registry.get(LeaseMetrics.LEASE_STALE).tag("lease", "short-db").gauge().value()).isZero();
			assertThat(registry.getMeters()).allSatisfy((meter) -> {
				assertThat(meter.getId().getName()).startsWith("leasekeeper.");
				assertThat(meter.getId().getDescription()).isNotBlank();
			});
		});
	}

	@Test
	void bootBindsTheMetersAndTheyCanBeSwitchedOff() {
		ApplicationContextRunner withBootMetrics = this.runner.withConfiguration(AutoConfigurations.of(
				org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration.class,
				org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration.class));
		withBootMetrics.run((context) -> assertThat(
				context.getBean(MeterRegistry.class).find(LeaseMetrics.RENEWALS).tags("lease", "short-db").counters())
			.hasSize(LeaseMetrics.OUTCOMES.size()));
		withBootMetrics.withPropertyValues("management.metrics.enable.leasekeeper=false")
			.run((context) -> assertThat(context.getBean(MeterRegistry.class).find(LeaseMetrics.RENEWALS).counters())
				.isEmpty());
	}

	@Test
	void aCappedRenewalAndARotationAreCountedAndTheRemainingMarginRecorded() {
		this.runner.run((context) -> {
			MeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(LeaseMetrics.class).bindTo(registry);
			LeaseRenewer renewer = context.getBean("shortDbLeaseRenewer", LeaseRenewer.class);
			await().atMost(Duration.ofSeconds(12)).until(() -> renewer.current().generation() == 2);
			// the meters follow the swap on the scheduling thread
			await().atMost(Duration.ofSeconds(2))
				.until(() -> registry.get(LeaseMetrics.ROTATIONS)
					.tags("lease", "short-db", "cause", "ceiling")
					.counter()
					.count() > 0);
			assertThat(registry.get(LeaseMetrics.RENEWALS)
				.tags("lease", "short-db", "outcome", "capped")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get(LeaseMetrics.ROTATIONS)
				.tags("lease", "short-db", "cause", "ceiling")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get(LeaseMetrics.RENEWAL_REMAINING).tag("lease", "short-db").summary().mean())
				.isBetween(1.0, 2.5);
			assertThat(registry.get(LeaseMetrics.RENEWAL_DURATION)
				.tags("lease", "short-db", "outcome", "capped")
				.timer()
				.count()).isEqualTo(1);
		});
	}

	@Test
	void anOutageIsCountedAsTransientFailuresAndRetries() {
		this.runner.run((context) -> {
			MeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(LeaseMetrics.class).bindTo(registry);
			LeaseRenewer renewer = context.getBean("shortDbLeaseRenewer", LeaseRenewer.class);
			vault.simulator().outage(true);
			try {
				renewer.renewNow();
				await().atMost(Duration.ofSeconds(5))
					.until(() -> registry.get(LeaseMetrics.RETRIES).tag("lease", "short-db").counter().count() >= 2);
			}
			finally {
				vault.simulator().outage(false);
			}
			assertThat(registry.get(LeaseMetrics.RENEWALS)
				.tags("lease", "short-db", "outcome", "transient-failure")
				.counter()
				.count()).isGreaterThanOrEqualTo(2);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.get(LeaseMetrics.RENEWALS)
					.tags("lease", "short-db", "outcome", "renewed")
					.counter()
					.count()
						+ registry.get(LeaseMetrics.RENEWALS)
							.tags("lease", "short-db", "outcome", "capped")
							.counter()
							.count() >= 1);
		});
	}

}
