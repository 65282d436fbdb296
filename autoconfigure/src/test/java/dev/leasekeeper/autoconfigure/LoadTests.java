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
 * size). A second run puts an outage of a third of the TTL whose connections hang in the
 * middle ({@code -Dleasekeeper.load.outage-minutes}, default 3): how many requests reach
 * Vault in the first second after it, and how late renewals are outside it.
 */
@EnabledIfSystemProperty(named = "leasekeeper.load", matches = "true")
class LoadTests {

	static final int LEASES = Integer.getInteger("leasekeeper.load.leases", 1000);

	static final Duration RUN = Duration.ofMinutes(Integer.getInteger("leasekeeper.load.minutes", 10));

	static final Duration OUTAGE_RUN = Duration.ofMinutes(Integer.getInteger("leasekeeper.load.outage-minutes", 3));

	static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder().configure((builder) -> {
		for (int i = 0; i < LEASES; i++) {
			builder.databaseRole(role(i), TTL, Duration.ofMinutes(5));
		}
	}).build();

	@Test
	void aThousandLeasesThroughAnOutageWhoseConnectionsHang() throws Exception {
		Lateness lateness = new Lateness();
		contextRunner(lateness).run((context) -> {
			assertThat(context).hasNotFailed();
			LeaseRegistry registry = context.getBean(LeaseRegistry.class);
			Duration before = OUTAGE_RUN.minus(TTL.dividedBy(3)).dividedBy(2);
			park(before);
			Instant outageStart = Instant.now();
			vault.simulator().hang(true);
			park(TTL.dividedBy(3));
			int held = vault.simulator().hang(false);
			Instant recovery = Instant.now();
			park(before);
			long active = registry.all()
				.stream()
				.filter((lease) -> lease.current().state() == LeaseState.ACTIVE
						|| lease.current().state() == LeaseState.RENEWING)
				.count();
			List<Instant> arrivals = vault.simulator().journal().stream().map((entry) -> entry.at()).toList();
			long firstSecond = arrivals.stream()
				.filter((at) -> !at.isBefore(recovery) && at.isBefore(recovery.plusSeconds(1)))
				.count();
			long during = arrivals.stream().filter((at) -> !at.isBefore(outageStart) && at.isBefore(recovery)).count();
			Lateness.Figures outside = lateness
				.figures((planned) -> planned.isBefore(outageStart) || planned.isAfter(recovery.plusSeconds(1)));
			String report = String.format(
					"Outage: %d leases (TTL %d s) for %d min with an outage of %d s whose connections hang: "
							+ "%d requests held unanswered during it (%d reached Vault), %d reached Vault in the first"
							+ " second after it; %d renewals that needed a retry, %d lost, %d active at the end;"
							+ " lateness of renewals outside the outage (%d measured): p50 %d ms, p99 %d ms, max %d ms",
					LEASES, TTL.toSeconds(), OUTAGE_RUN.toMinutes(), TTL.dividedBy(3).toSeconds(), held, during,
					firstSecond, lateness.retried.get(), lateness.lost.get(), active, outside.count(), outside.p50(),
					outside.p99(), outside.max());
			System.out.println(report);
			write("load-outage.txt", report);
			assertThat(firstSecond).as("requests in the first second after the outage").isLessThanOrEqualTo(LEASES);
			assertThat(active).isEqualTo(LEASES + 1);
		});
	}

	@Test
	void aThousandLeasesForTenMinutesLoseNothingAndRenewOnTime() throws Exception {
		Lateness lateness = new Lateness();
		contextRunner(lateness).run((context) -> {
			assertThat(context).hasNotFailed();
			LeaseRegistry registry = context.getBean(LeaseRegistry.class);
			park(RUN);
			long active = registry.all()
				.stream()
				.filter((lease) -> lease.current().state() == LeaseState.ACTIVE
						|| lease.current().state() == LeaseState.RENEWING)
				.count();
			String report = lateness.report(active);
			System.out.println(report);
			write("load.txt", report);
			assertThat(lateness.lost.get()).as("leases lost").isZero();
			assertThat(active).isEqualTo(LEASES + 1);
			assertThat(lateness.rotations.get()).isGreaterThan(0);
		});
	}

	private static ApplicationContextRunner contextRunner(Lateness lateness) {
		List<String> properties = new ArrayList<>(List.of(vault.propertyValues()));
		properties.add("leasekeeper.startup-timeout=2m");
		for (int i = 0; i < LEASES; i++) {
			properties.add("leasekeeper.leases." + role(i) + ".path=database/creds/" + role(i));
		}
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
			.withPropertyValues(properties.toArray(String[]::new))
			.withBean(LeaseListenerProvider.class, () -> (name) -> lateness);
	}

	private static void park(Duration duration) {
		Instant end = Instant.now().plus(duration);
		while (Instant.now().isBefore(end)) {
			LockSupport
				.parkNanos(Math.min(Duration.ofSeconds(1).toNanos(), Duration.between(Instant.now(), end).toNanos()));
		}
	}

	private static void write(String name, String report) throws java.io.IOException {
		Path file = Path.of("target", "reliability", name);
		Files.createDirectories(file.getParent());
		Files.writeString(file, report + "\n");
	}

	private static String role(int i) {
		return String.format("l%04d", i);
	}

	/** Lateness of every renewal against the instant planned for it. */
	static final class Lateness implements LeaseListener {

		final Map<String, Instant> planned = new ConcurrentHashMap<>();

		final List<Long> latenessMillis = java.util.Collections.synchronizedList(new ArrayList<>());

		final List<Instant> plannedAt = java.util.Collections.synchronizedList(new ArrayList<>());

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
				synchronized (this.latenessMillis) {
					this.latenessMillis.add(Duration.between(plan, lease.obtainedAt()).toMillis());
					this.plannedAt.add(plan);
				}
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

		/**
		 * The lateness of the renewals planned at instants that {@code include} accepts.
		 */
		Figures figures(java.util.function.Predicate<Instant> include) {
			List<Long> sorted = new ArrayList<>();
			synchronized (this.latenessMillis) {
				for (int i = 0; i < this.latenessMillis.size(); i++) {
					if (include.test(this.plannedAt.get(i))) {
						sorted.add(this.latenessMillis.get(i));
					}
				}
			}
			java.util.Collections.sort(sorted);
			return new Figures(sorted.size(), percentile(sorted, 0.50), percentile(sorted, 0.99),
					sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1));
		}

		record Figures(int count, long p50, long p99, long max) {
		}

		private static long percentile(List<Long> sorted, double p) {
			if (sorted.isEmpty()) {
				return 0;
			}
			return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(p * sorted.size()) - 1));
		}

	}

}
