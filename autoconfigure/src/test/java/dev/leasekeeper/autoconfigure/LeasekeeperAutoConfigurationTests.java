package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRegistry;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.event.LeaseEvent;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRenewedEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.core.VaultTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LeasekeeperAutoConfigurationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(6), Duration.ofHours(1))
			.databaseRole("short", Duration.ofSeconds(6), Duration.ofSeconds(9)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
		.withPropertyValues("leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.expiry-buffer=300ms",
				"leasekeeper.defaults.attempt-timeout=500ms", "leasekeeper.defaults.retry.initial-interval=100ms",
				"leasekeeper.defaults.retry.max-interval=200ms");

	private ApplicationContextRunner withLease(String... more) {
		return this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders")
			.withPropertyValues(more);
	}

	@Test
	void eachDeclaredLeaseIsARenewerBeanAndInTheRegistry() {
		withLease().run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasBean("ordersDbLeaseRenewer").hasBean("vaultTokenLeaseRenewer");
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			assertThat(renewer.current().generation()).isEqualTo(1);
			assertThat(renewer.current().state()).isEqualTo(LeaseState.ACTIVE);
			assertThat(context.getBean(LeaseRegistry.class).get("orders-db")).isPresent();
			assertThat(context.getBean(VaultOperations.class)).isInstanceOf(VaultTemplate.class);
		});
	}

	@Test
	void withoutMicrometerActuatorOrHikariTheLeasesStillWork() {
		withLease()
			.withConfiguration(AutoConfigurations.of(LeasekeeperMetricsAutoConfiguration.class,
					LeasekeeperActuatorAutoConfiguration.class, LeasekeeperDataSourceAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.micrometer", "org.springframework.boot.actuate",
					"org.springframework.boot.health", "com.zaxxer"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class).current().generation())
					.isEqualTo(1);
			});
	}

	@Test
	void disabledRegistersNothing() {
		withLease("leasekeeper.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LeaseRegistry.class);
			assertThat(context).doesNotHaveBean(LeaseRenewer.class);
			assertThat(context).doesNotHaveBean(VaultOperations.class);
		});
	}

	@Test
	void theApplicationsOwnVaultOperationsIsUsedAndItsTokenNotRenewed() {
		withLease().withUserConfiguration(OwnVault.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean("vaultTokenLeaseRenewer");
			assertThat(context.getBean(VaultOperations.class)).isSameAs(context.getBean("ownVault"));
			assertThat(context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class).current().generation()).isEqualTo(1);
		});
	}

	@Test
	void renewalsArePublishedAsEventsOnThePlannedScheduleOffTheRenewalThread() {
		withLease().withUserConfiguration(Events.class).run((context) -> {
			Events events = context.getBean(Events.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			String leaseId = renewer.current().leaseId();
			await().atMost(Duration.ofSeconds(10)).until(() -> events.of(LeaseRenewedEvent.class).size() >= 2);
			LeaseRenewedEvent renewed = events.of(LeaseRenewedEvent.class).get(0);
			assertThat(renewed.getLeaseName()).isEqualTo("orders-db");
			assertThat(renewed.getGrantedTtl()).isEqualTo(Duration.ofSeconds(6));
			assertThat(events.threads).allMatch("leasekeeper-events"::equals);
			String password = (String) renewer.current().data().get("password");
			assertThat(events.received)
				.allSatisfy((event) -> assertThat(event.toString()).doesNotContain(password).contains("orders-db"));
			List<JournalEntry> renewals = vault.simulator()
				.journal((entry) -> leaseId.equals(entry.leaseId()) && entry.path().equals("sys/leases/renew"));
			// one renewal stream: about 0.66 × 6 s apart, never two at once
			for (int i = 1; i < renewals.size(); i++) {
				Duration gap = Duration.between(renewals.get(i - 1).at(), renewals.get(i).at());
				assertThat(gap).isBetween(Duration.ofMillis(3500), Duration.ofMillis(4300));
			}
		});
	}

	@Test
	void aListenerThatBlocksNeverDelaysARenewal() {
		withLease().withUserConfiguration(BlockingListener.class).run((context) -> {
			BlockingListener listener = context.getBean(BlockingListener.class);
			String leaseId = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class).current().leaseId();
			try {
				await().atMost(Duration.ofSeconds(12))
					.until(() -> vault.simulator()
						.journal((entry) -> leaseId.equals(entry.leaseId()) && entry.path().equals("sys/leases/renew"))
						.size() >= 2);
				assertThat(listener.received).isEqualTo(1);
			}
			finally {
				listener.release.countDown();
			}
		});
	}

	@Test
	void closingTheContextRevokesTheLeasesThenTheToken() {
		String[] leaseId = new String[1];
		withLease().run((context) -> leaseId[0] = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class)
			.current()
			.leaseId());
		assertThat(vault.simulator().isLeaseAlive(leaseId[0])).isFalse();
		List<JournalEntry> journal = vault.simulator().journal();
		int revoke = indexOf(journal, "sys/leases/revoke", leaseId[0]);
		assertThat(revoke).isNotNegative();
	}

	@Test
	void revokeOnShutdownFalseKeepsTheLease() {
		String[] leaseId = new String[1];
		withLease("leasekeeper.leases.orders-db.revoke-on-shutdown=false")
			.run((context) -> leaseId[0] = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class)
				.current()
				.leaseId());
		assertThat(vault.simulator().isLeaseAlive(leaseId[0])).isTrue();
	}

	@Test
	void aLeaseRevokedOutOfBandIsLostThenObtainedAgain() {
		withLease().withUserConfiguration(Events.class).run((context) -> {
			Events events = context.getBean(Events.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			vault.simulator().revokeLease(renewer.current().leaseId());
			await().atMost(Duration.ofSeconds(10)).until(() -> renewer.current().generation() == 2);
			await().atMost(Duration.ofSeconds(2)).until(() -> !events.of(LeaseRotatedEvent.class).isEmpty());
			assertThat(events.of(LeaseLostEvent.class)).singleElement()
				.satisfies((lost) -> assertThat(lost.getErrorClass()).isEqualTo("lease-not-found"));
			assertThat(events.of(LeaseRotatedEvent.class).get(0).getPreviousGeneration()).isEqualTo(1);
		});
	}

	@Test
	void anOutageOfAThirdOfTheMarginLosesNothing() {
		withLease().withUserConfiguration(Events.class).run((context) -> {
			Events events = context.getBean(Events.class);
			LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
			// margin: (1 - 0.67) x 6 s - 500 ms - 300 ms = 1.18 s; an outage of 400 ms
			// from the renewal
			await().atMost(Duration.ofSeconds(6)).until(() -> renewer.current().nextActionAt() != null);
			java.time.Instant renewal = renewer.current().nextActionAt();
			await().atMost(Duration.ofSeconds(6))
				.until(() -> java.time.Duration.between(java.time.Instant.now(), renewal).toMillis() < 50);
			vault.simulator().outage(true);
			java.time.Instant outageEnd = java.time.Instant.now().plusMillis(400);
			try {
				// the renewal falls in the outage and is retried
				await().atMost(Duration.ofSeconds(5))
					.until(() -> renewer.current().state() == LeaseState.RETRYING
							&& java.time.Instant.now().isAfter(outageEnd));
			}
			finally {
				vault.simulator().outage(false);
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> events.of(LeaseRenewedEvent.class).size() >= 1);
			assertThat(events.of(LeaseLostEvent.class)).isEmpty();
			assertThat(renewer.current().generation()).isEqualTo(1);
		});
	}

	@Test
	void withOnLostExitALostLeaseStopsTheApplicationWithANonZeroCode() {
		withLease("leasekeeper.leases.orders-db.on-lost=exit").withUserConfiguration(RecordingExit.class)
			.run((context) -> {
				RecordingExit exit = context.getBean(RecordingExit.class);
				LeaseRenewer renewer = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				vault.simulator().revokeLease(renewer.current().leaseId());
				renewer.renewNow();
				await().atMost(Duration.ofSeconds(5)).until(() -> exit.code != null);
				assertThat(exit.code).isEqualTo(ExitOnLossListener.EXIT_CODE);
				// it does not spin: no new credential is obtained
				assertThat(renewer.current().generation()).isEqualTo(1);
				assertThat(renewer.current().state()).isEqualTo(LeaseState.LOST);
			});
	}

	private static int indexOf(List<JournalEntry> journal, String path, String leaseId) {
		for (int i = 0; i < journal.size(); i++) {
			if (journal.get(i).path().equals(path) && leaseId.equals(journal.get(i).leaseId())) {
				return i;
			}
		}
		return -1;
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnVault {

		@Bean
		VaultTemplate ownVault() {
			return new VaultTemplate(VaultEndpoint.from(vault.simulator().uri()),
					new TokenAuthentication(vault.simulator().rootToken()));
		}

	}

	static class Events {

		final List<LeaseEvent> received = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LeaseEvent event) {
			this.received.add(event);
			this.threads.add(Thread.currentThread().getName());
		}

		<T extends LeaseEvent> List<T> of(Class<T> type) {
			return this.received.stream().filter(type::isInstance).map(type::cast).toList();
		}

	}

	static class RecordingExit implements LeasekeeperExit {

		volatile Integer code;

		@Override
		public void exit(int exitCode) {
			this.code = exitCode;
		}

	}

	static class BlockingListener {

		final CountDownLatch release = new CountDownLatch(1);

		volatile int received;

		@EventListener
		void on(LeaseRenewedEvent event) throws InterruptedException {
			this.received++;
			this.release.await();
		}

	}

}
