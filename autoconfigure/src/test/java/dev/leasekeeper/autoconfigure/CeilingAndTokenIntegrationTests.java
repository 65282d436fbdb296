package dev.leasekeeper.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.LeaseCeilingReachedEvent;
import dev.leasekeeper.event.LeaseLostEvent;
import dev.leasekeeper.event.LeaseRotatedEvent;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulator;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * At a max TTL, over real HTTP: secret leases rotate before they expire, and the token
 * logs in again with every secret lease obtained anew before the old token expires.
 */
class CeilingAndTokenIntegrationTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("short", Duration.ofSeconds(6), Duration.ofSeconds(9))
			.databaseRole("orders", Duration.ofSeconds(20), Duration.ofHours(1))
			.databaseRole("kept", Duration.ofSeconds(20), Duration.ofHours(1))
			.appRole("worker", "worker-role", "worker-secret", Duration.ofSeconds(4), Duration.ofSeconds(8)))
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
		.withUserConfiguration(LeasekeeperAutoConfigurationTests.Events.class)
		.withPropertyValues("leasekeeper.defaults.first-renewal-spread=0", "leasekeeper.defaults.expiry-buffer=300ms",
				"leasekeeper.defaults.attempt-timeout=500ms", "leasekeeper.defaults.retry.initial-interval=100ms",
				"leasekeeper.defaults.retry.max-interval=200ms");

	@Test
	void atTheRolesMaxTtlTheCeilingIsReportedThenTheLeaseRotatedBeforeTheOldOneExpires() {
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.leases.short-db.path=database/creds/short")
			.run((context) -> {
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				LeaseRenewer renewer = context.getBean("shortDbLeaseRenewer", LeaseRenewer.class);
				String first = renewer.current().leaseId();
				await().atMost(Duration.ofSeconds(12)).until(() -> !events.of(LeaseRotatedEvent.class).isEmpty());
				LeaseCeilingReachedEvent ceiling = events.of(LeaseCeilingReachedEvent.class).get(0);
				assertThat(ceiling.getGeneration()).isEqualTo(1);
				LeaseRotatedEvent rotated = events.of(LeaseRotatedEvent.class).get(0);
				assertThat(rotated.getGeneration()).isEqualTo(2);
				assertThat(rotated.getCause()).isEqualTo(RotationCause.CEILING);
				assertThat(events.received.indexOf(ceiling)).isLessThan(events.received.indexOf(rotated));
				// obtained while the first was still valid; the first revoked after, at
				// an
				// instant drawn over its remaining life (a fleet's revocations spread
				// out)
				JournalEntry acquired = vault.simulator()
					.journal((entry) -> entry.path().equals("database/creds/short"))
					.get(1);
				assertThat(acquired.at()).isBefore(ceiling.getHardExpiry());
				await().atMost(Duration.between(Instant.now(), ceiling.getHardExpiry()).plusSeconds(2))
					.until(() -> !vault.simulator()
						.journal((entry) -> entry.path().equals("sys/leases/revoke") && first.equals(entry.leaseId()))
						.isEmpty());
				assertThat(vault.simulator()
					.journal((entry) -> entry.path().equals("sys/leases/revoke") && first.equals(entry.leaseId())))
					.singleElement()
					.satisfies((revocation) -> assertThat(revocation.at()).isBefore(ceiling.getHardExpiry()));
			});
	}

	@Test
	void withTheRolesMaxTtlDeclaredTheFirstGenerationRotatesInTheSlotOfTheRenewalThatWouldComeBackCapped() {
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.leases.short-db.path=database/creds/short",
					"leasekeeper.leases.short-db.max-ttl=9s")
			.run((context) -> {
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				LeaseRenewer renewer = context.getBean("shortDbLeaseRenewer", LeaseRenewer.class);
				String first = renewer.current().leaseId();
				Instant firstExpiry = renewer.current().expiry();
				await().atMost(Duration.ofSeconds(12)).until(() -> !events.of(LeaseRotatedEvent.class).isEmpty());
				LeaseRotatedEvent rotated = events.of(LeaseRotatedEvent.class).get(0);
				assertThat(rotated.getCause()).isEqualTo(RotationCause.CEILING);
				assertThat(events.of(LeaseCeilingReachedEvent.class)).isNotEmpty();
				// the renewal at 4 s would have come back capped (9 s - 4 s < 6 s): the
				// next generation was obtained in its place, with no renewal sent
				assertThat(vault.simulator()
					.journal((entry) -> entry.path().equals("sys/leases/renew") && first.equals(entry.leaseId())))
					.isEmpty();
				JournalEntry acquired = vault.simulator()
					.journal((entry) -> entry.path().equals("database/creds/short"))
					.get(1);
				assertThat(acquired.at()).isBefore(firstExpiry.minusSeconds(1));
			});
	}

	@Test
	void aTokenGivenInConfigurationIsKeptToItsMaxTtlNeverRotatedIntoItselfNorLookedUpInALoop() {
		// what an operator hands an application: a token with a TTL and a max TTL
		Instant started = Instant.now();
		String token = vault.simulator()
			.createToken(Duration.ofSeconds(3), Duration.ofSeconds(8), VaultSimulator.APPLICATION_POLICY);
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues("leasekeeper.vault.token=" + token,
					"leasekeeper.leases.kept-db.path=database/creds/kept")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				await().atMost(Duration.ofSeconds(13))
					.until(() -> events.of(LeaseLostEvent.class)
						.stream()
						.anyMatch((lost) -> lost.getLeaseName().equals("vault-token")));
				assertThat(events.of(LeaseCeilingReachedEvent.class))
					.anySatisfy((ceiling) -> assertThat(ceiling.getLeaseName()).isEqualTo("vault-token"));
				// neither the token (it cannot be replaced) nor the secret lease (its
				// token did not change) is rotated, then or after its end
				await().during(Duration.ofSeconds(2))
					.atMost(Duration.ofSeconds(3))
					.until(() -> events.of(LeaseRotatedEvent.class).isEmpty());
				assertThat(events.of(LeaseLostEvent.class))
					.filteredOn((lost) -> lost.getLeaseName().equals("vault-token"))
					.hasSize(1);
				assertThat(vault.simulator()
					.journal((entry) -> entry.path().equals("database/creds/kept") && entry.at().isAfter(started)))
					.as("%s %s", vault.simulator().journal((entry) -> entry.at().isAfter(started)), events.received)
					.hasSize(1);
				// its look-ups are a retry interval apart at least (in its last second
				// they came one per answer, as fast as the simulator answered)
				List<Instant> lookups = vault.simulator()
					.journal((entry) -> entry.path().equals("auth/token/lookup-self") && entry.at().isAfter(started))
					.stream()
					.map(JournalEntry::at)
					.toList();
				assertThat(lookups).hasSizeGreaterThanOrEqualTo(2);
				for (int i = 1; i < lookups.size(); i++) {
					assertThat(Duration.between(lookups.get(i - 1), lookups.get(i)))
						.isGreaterThanOrEqualTo(Duration.ofMillis(50));
				}
			});
	}

	@Test
	void theTokenAtItsMaxTtlLogsInAgainAndEverySecretLeaseIsObtainedAgainBeforeTheOldTokenExpires() {
		this.runner
			.withPropertyValues("leasekeeper.vault.uri=" + vault.simulator().uri(),
					"leasekeeper.vault.authentication=approle", "leasekeeper.vault.app-role.role-id=worker-role",
					"leasekeeper.vault.app-role.secret-id=worker-secret",
					"leasekeeper.leases.orders-db.path=database/creds/orders")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LeasekeeperAutoConfigurationTests.Events events = context
					.getBean(LeasekeeperAutoConfigurationTests.Events.class);
				LeaseRenewer token = context.getBean("vaultTokenLeaseRenewer", LeaseRenewer.class);
				LeaseRenewer orders = context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class);
				Instant firstTokenExpiry = Instant.now().plusSeconds(8);
				String firstLease = orders.current().leaseId();
				await().atMost(Duration.ofSeconds(12)).until(() -> orders.current().generation() == 2);
				assertThat(Instant.now()).isBefore(firstTokenExpiry);
				// the event follows the swap on the scheduling thread
				await().atMost(Duration.ofSeconds(2)).until(() -> !events.of(LeaseRotatedEvent.class).isEmpty());
				assertThat(token.current().generation()).isEqualTo(2);
				List<LeaseRotatedEvent> rotations = events.of(LeaseRotatedEvent.class);
				assertThat(rotations).anySatisfy((event) -> {
					assertThat(event.getLeaseName()).isEqualTo("orders-db");
					assertThat(event.getCause()).isEqualTo(RotationCause.TOKEN);
				});
				List<JournalEntry> logins = vault.simulator()
					.journal((entry) -> entry.path().equals("auth/approle/login"));
				assertThat(logins).hasSize(2);
				String oldAccessor = vault.simulator()
					.journal((entry) -> entry.path().equals("database/creds/orders"))
					.get(0)
					.accessor();
				await().atMost(Duration.ofSeconds(3)).until(() -> !vault.simulator().isTokenAlive(oldAccessor));
				// the old token was revoked only after the secret lease had moved on
				List<JournalEntry> journal = vault.simulator().journal();
				int secretRevoked = indexOf(journal, "sys/leases/revoke", firstLease);
				int tokenRevoked = -1;
				for (int i = 0; i < journal.size(); i++) {
					if (journal.get(i).path().equals("auth/token/revoke-self")
							&& oldAccessor.equals(journal.get(i).accessor())) {
						tokenRevoked = i;
					}
				}
				assertThat(secretRevoked).isNotNegative().isLessThan(tokenRevoked);
				assertThat(vault.simulator().isLeaseAlive(orders.current().leaseId())).isTrue();
				// one renewal stream for the token: renew-self about 0.66 x 4 s apart,
				// never two at once
				List<JournalEntry> tokenRenewals = vault.simulator()
					.journal((entry) -> entry.path().equals("auth/token/renew-self")
							&& oldAccessor.equals(entry.accessor()));
				assertThat(tokenRenewals).isNotEmpty();
				for (int i = 1; i < tokenRenewals.size(); i++) {
					assertThat(Duration.between(tokenRenewals.get(i - 1).at(), tokenRenewals.get(i).at()))
						.isGreaterThan(Duration.ofMillis(1500));
				}
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

}
