package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRenewedEvent;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application's listeners cannot stop the clock: with one that blocks for a minute at
 * the first renewal and one that throws an {@link Error} at every renewal, a 6 s lease
 * with every default keeps renewing, and a well-behaved listener hears every renewal.
 */
class ListenerIsolationIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(6), Duration.ofHours(1)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
		.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class, Listeners.class);

	@Test
	void aListenerThatBlocksAndOneThatThrowsAnErrorStopNoRenewal() {
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.leases.orders-db.path=database/creds/orders")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Listeners listeners = context.getBean(Listeners.class);
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				try {
					// a 6 s lease renews every ~4 s: four renewals need ~16 s
					await().atMost(Duration.ofSeconds(30))
						.until(() -> events.of(LeaseRenewedEvent.class)
							.stream()
							.filter((event) -> event.getLeaseName().equals("orders-db"))
							.count() >= 4);
					assertThat(listeners.entered.getCount()).as("the blocking listener was called").isZero();
					assertThat(listeners.release.getCount()).as("and is still blocked").isOne();
					assertThat(listeners.errors).hasSizeGreaterThanOrEqualTo(4);
					assertThat(listeners.heard).hasSizeGreaterThanOrEqualTo(4);
					assertThat(listeners.heardOn).noneMatch((thread) -> thread.startsWith("leasekeeper-scheduler"));
					assertThat(orders.current().state()).isEqualTo(LeaseState.ACTIVE);
					assertThat(orders.current().generation()).isEqualTo(1);
					assertThat(events.of(LeaseLostEvent.class)).isEmpty();
				}
				finally {
					listeners.release.countDown();
				}
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final CountDownLatch release = new CountDownLatch(1);

		final CountDownLatch entered = new CountDownLatch(1);

		final List<Throwable> errors = new CopyOnWriteArrayList<>();

		final List<Integer> heard = new CopyOnWriteArrayList<>();

		final List<String> heardOn = new CopyOnWriteArrayList<>();

		@Bean
		LeaseListenerProvider blockingListener() {
			return (name) -> new LeaseListener() {
				@Override
				public void onRenewed(LeaseRenewal renewal) {
					Listeners.this.entered.countDown();
					try {
						Listeners.this.release.await(60, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
			};
		}

		@Bean
		LeaseListenerProvider throwingListener() {
			return (name) -> new LeaseListener() {
				@Override
				public void onRenewed(LeaseRenewal renewal) {
					AssertionError error = new AssertionError("a listener's bug");
					Listeners.this.errors.add(error);
					throw error;
				}
			};
		}

		@Bean
		LeaseListenerProvider countingListener() {
			return (name) -> new LeaseListener() {
				@Override
				public void onRenewed(LeaseRenewal renewal) {
					if (renewal.lease().name().equals("orders-db")) {
						Listeners.this.heard.add(renewal.lease().generation());
						Listeners.this.heardOn.add(Thread.currentThread().getName());
					}
				}
			};
		}

	}

}
