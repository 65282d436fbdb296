package dev.leasekeeper.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseRegistry;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Load: 1,000 leases in one context against the simulator for 10 minutes of real time,
 * with a 30 s TTL and a 5 min max TTL, so that each lease renews about every 20 s and
 * rotates at its ceiling. Nothing may be lost; reports the lateness of each renewal (the
 * instant its request was sent less the instant the engine had planned for it). Outside
 * {@code verify}: {@code ./mvnw -B verify -Pload -pl autoconfigure -am}
 * ({@code -Dleasekeeper.load.minutes} and {@code -Dleasekeeper.load.leases} change the
 * size).
 */
@EnabledIfSystemProperty(named = "leasekeeper.load", matches = "true")
class LoadTests {

	static final int LEASES = Integer.getInteger("leasekeeper.load.leases", 1000);

	static final Duration RUN = Duration.ofMinutes(Integer.getInteger("leasekeeper.load.minutes", 10));

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder().configure((builder) -> {
		for (int i = 0; i < LEASES; i++) {
			builder.databaseRole(role(i), Duration.ofSeconds(30), Duration.ofMinutes(5));
		}
	}).build();

	@Test
	void aThousandLeasesForTenMinutesLoseNothingAndRenewOnTime() throws Exception {
		List<String> properties = new ArrayList<>(List.of(vault.propertyValues()));
		properties.add("leasekeeper.startup-timeout=2m");
		for (int i = 0; i < LEASES; i++) {
			properties.add("leasekeeper.leases." + role(i) + ".path=database/creds/" + role(i));
		}
		Lateness lateness = new Lateness();
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
			.withPropertyValues(properties.toArray(String[]::new))
			.withBean(LeaseListenerProvider.class, () -> (name) -> lateness)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeaseRegistry registry = context.getBean(LeaseRegistry.class);
				Instant end = Instant.now().plus(RUN);
				while (Instant.now().isBefore(end)) {
					LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
				}
				long active = registry.all()
					.stream()
					.filter((lease) -> lease.current().state() == LeaseState.ACTIVE
							|| lease.current().state() == LeaseState.RENEWING)
					.count();
				String report = lateness.report(active);
				System.out.println(report);
				Path file = Path.of("target", "reliability", "load.txt");
				Files.createDirectories(file.getParent());
				Files.writeString(file, report + "\n");
				assertThat(lateness.lost.get()).as("leases lost").isZero();
				assertThat(active).isEqualTo(LEASES + 1);
				assertThat(lateness.rotations.get()).isGreaterThan(0);
			});
	}

	private static String role(int i) {
		return String.format("l%04d", i);
	}

	/** Lateness of every renewal against the instant planned for it. */
	static final class Lateness implements LeaseListener {

		final Map<String, Instant> planned = new ConcurrentHashMap<>();

		final List<Long> latenessMillis = java.util.Collections.synchronizedList(new ArrayList<>());

		final AtomicInteger lost = new AtomicInteger();

		final AtomicInteger rotations = new AtomicInteger();

		final AtomicInteger retried = new AtomicInteger();

		@Override
		public void onAcquired(LeaseSnapshot lease) {
			plan(lease);
		}

		@Override
		public void onRenewed(LeaseRenewal renewal) {
			LeaseSnapshot lease = renewal.lease();
			Instant plan = this.planned.get(lease.name());
			if (renewal.attempts() == 1 && plan != null && lease.obtainedAt() != null) {
				this.latenessMillis.add(Duration.between(plan, lease.obtainedAt()).toMillis());
			}
			else if (renewal.attempts() > 1) {
				this.retried.incrementAndGet();
			}
			plan(lease);
		}

		@Override
		public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
			this.rotations.incrementAndGet();
			plan(lease);
		}

		@Override
		public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
			this.lost.incrementAndGet();
		}

		private void plan(LeaseSnapshot lease) {
			if (lease.nextActionAt() != null) {
				this.planned.put(lease.name(), lease.nextActionAt());
			}
		}

		String report(long active) {
			List<Long> sorted;
			synchronized (this.latenessMillis) {
				sorted = new ArrayList<>(this.latenessMillis);
			}
			java.util.Collections.sort(sorted);
			return String.format(
					"Load: %d leases for %d min: %d renewals measured, %d rotations, %d renewals that needed a retry, "
							+ "%d lost, %d active at the end; lateness of renewals (sent - planned): p50 %d ms, "
							+ "p99 %d ms, max %d ms",
					LEASES, RUN.toMinutes(), sorted.size(), this.rotations.get(), this.retried.get(), this.lost.get(),
					active, percentile(sorted, 0.50), percentile(sorted, 0.99),
					sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1));
		}

		private static long percentile(List<Long> sorted, double p) {
			if (sorted.isEmpty()) {
				return 0;
			}
			return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(p * sorted.size()) - 1));
		}

	}

}
