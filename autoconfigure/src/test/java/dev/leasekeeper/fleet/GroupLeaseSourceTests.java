package dev.leasekeeper.fleet;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.ExecutorLeaseScheduler;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.testkit.VaultSimulator;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A follower's view of its group's grant, read from a publication written by hand: the
 * credential is valid until the published expiry less the buffer, then lost
 * ({@code LeaseLostEvent}) when no newer publication came; a renewal the leader published
 * is adopted as a renewal, a new lease id as a rotation ({@code PUBLISHED}).
 */
class GroupLeaseSourceTests {

	static final String KEY = "leasekeeper/views/orders-db";

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.policy("fleet-member", """
				path "secret/data/leasekeeper/*" { capabilities = ["create", "read", "update"] }
				"""))
		.build();

	private final ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(2);

	private final List<String> events = new CopyOnWriteArrayList<>();

	private @Nullable ManagedLease view;

	@AfterEach
	void stop() throws Exception {
		if (this.view != null) {
			this.view.stop(false).get(10, TimeUnit.SECONDS);
		}
		this.scheduler.close();
	}

	@Test
	void aFollowerAdoptsRenewalsAndNewGrantsAndLosesAGrantNobodyRenews() throws Exception {
		Instant now = Instant.now();
		// the leader is due again in a second: the follower reads again soon after
		vault.simulator()
			.kvWrite(KEY, publication("database/creds/orders/one", "first", now.plusSeconds(30), now.plusSeconds(1)));
		String token = vault.simulator().createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member");
		VaultTemplate template = new VaultTemplate(VaultEndpoint.from(URI.create(vault.simulator().uri().toString())),
				new TokenAuthentication(token));
		GroupStore store = new GroupStore(template, "secret/data/" + KEY);
		GroupMember member = new GroupMember("views", "orders-db", "follower-1", store, new DefaultLockRegistry(),
				Duration.ofSeconds(3), this.scheduler, Duration.ofSeconds(1), new SplittableRandom(3), (elected) -> {
					throw new AssertionError("a follower that may not lead was elected");
				});
		ManagedLease lease = ManagedLease
			.builder("orders-db",
					new GroupLeaseSource(store, member, this.scheduler.clock(), Clock.systemUTC(),
							Duration.ofMillis(200), new SplittableRandom(4)),
					this.scheduler)
			.refreshCause(RotationCause.PUBLISHED)
			.listener(new Recording())
			.build();
		this.view = lease;
		lease.start();
		lease.firstGrant().get(10, TimeUnit.SECONDS);
		assertThat(lease.current().leaseId()).isEqualTo("database/creds/orders/one");
		// the leader renews: same lease, later expiry
		Instant later = Instant.now();
		vault.simulator()
			.kvWrite(KEY,
					publication("database/creds/orders/one", "first", later.plusSeconds(40), later.plusSeconds(1)));
		await().atMost(Duration.ofSeconds(20)).until(() -> this.events.contains("renewed 1"));
		// then rotates: a new lease, valid 10 s, that nobody renews
		Instant last = Instant.now();
		vault.simulator()
			.kvWrite(KEY,
					publication("database/creds/orders/two", "second", last.plusSeconds(10), last.plusSeconds(1)));
		await().atMost(Duration.ofSeconds(20)).until(() -> this.events.contains("rotated 2 PUBLISHED"));
		assertThat(lease.current().data()).containsEntry("password", "second");
		await().atMost(Duration.ofSeconds(20)).until(() -> this.events.contains("lost 2 EXPIRED"));
		assertThat(lease.current().state()).isNotEqualTo(LeaseState.ACTIVE);
		assertThat(this.events).startsWith("acquired 1", "renewed 1");
	}

	private static Map<String, Object> publication(String leaseId, String password, Instant expireAt,
			Instant refreshAt) {
		return Map.of("lease_id", leaseId, "data", Map.of("username", "v-orders", "password", password), "ttl", 4,
				"expire_time", expireAt.toString(), "refresh_time", refreshAt.toString(), "generation", 1, "leader",
				"leader-1");
	}

	private final class Recording implements LeaseListener {

		@Override
		public void onAcquired(LeaseSnapshot lease) {
			GroupLeaseSourceTests.this.events.add("acquired " + lease.generation());
		}

		@Override
		public void onRenewed(LeaseRenewal renewal) {
			GroupLeaseSourceTests.this.events.add("renewed " + renewal.lease().generation());
		}

		@Override
		public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
			GroupLeaseSourceTests.this.events.add("rotated " + lease.generation() + " " + cause);
		}

		@Override
		public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
			GroupLeaseSourceTests.this.events.add("lost " + lease.generation() + " " + reason);
		}

	}

}
