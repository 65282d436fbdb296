package dev.leasekeeper.fleet;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.autoconfigure.CapturedLogs;
import dev.leasekeeper.core.ExecutorLeaseScheduler;
import dev.leasekeeper.core.RenewalPolicy;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulator;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A group's leader against the Vault simulator: a new grant whose credential fails the
 * check is never published — the group keeps the grant it has, the rejected one is
 * revoked, and the leader tries again — and the first one that passes is published as the
 * next generation. The grants belong to the group token, an orphan nobody's stop can end,
 * and replaced before its explicit max TTL when its role gives it one.
 */
class GroupLeaderTests {

	static final String KEY = "leasekeeper/checks/orders-db";

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofSeconds(6), Duration.ofSeconds(12))
			.tokenRole("checks-group", true, Duration.ofMinutes(2), "fleet-grant")
			.tokenRole("capped-group", true, null, Duration.ofSeconds(8), "fleet-grant")
			.policy("fleet-grant",
					"path \"database/creds/orders\" { capabilities = [\"read\"] }\n"
							+ "path \"sys/leases/revoke\" { capabilities = [\"update\"] }")
			.policy("fleet-member", """
					path "secret/data/leasekeeper/*" { capabilities = ["create", "read", "update"] }
					path "secret/metadata/leasekeeper/*" { capabilities = ["create", "read", "update"] }
					path "auth/token/create/checks-group" { capabilities = ["update"] }
					path "auth/token/create/capped-group" { capabilities = ["update"] }
					"""))
		.build();

	private final ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(2);

	private GroupMember member;

	@BeforeEach
	void clearJournal() {
		vault.simulator().clearJournal();
	}

	@AfterEach
	void stop() {
		if (this.member != null) {
			this.member.close();
		}
		this.scheduler.close();
	}

	@Test
	void aGrantThatFailsItsCheckIsNeverPublishedAndTheGroupKeepsItsGrant() {
		String token = vault.simulator().createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member");
		VaultTemplate template = new VaultTemplate(VaultEndpoint.from(URI.create(vault.simulator().uri().toString())),
				new TokenAuthentication(token));
		GroupStore store = new GroupStore(template, "secret/data/" + KEY);
		AtomicInteger checks = new AtomicInteger();
		AtomicInteger refusals = new AtomicInteger();
		// the first grant passes; the next two fail their check; then they pass again
		GroupLeader.Validator validator = (data) -> {
			int check = checks.incrementAndGet();
			if (check == 2 || check == 3) {
				refusals.incrementAndGet();
				throw new IllegalStateException("the database refuses " + data.keySet());
			}
		};
		this.member = new GroupMember("checks", "orders-db", "leader-1", store, new DefaultLockRegistry(),
				Duration.ofSeconds(3), this.scheduler, Duration.ofSeconds(2), new SplittableRandom(1),
				(elected) -> new GroupLeader(new GroupLeader.Spec("orders-db", "database/creds/orders", "checks",
						"checks-group", store, template, this.scheduler, Clock.systemUTC(), RenewalPolicy.defaults(),
						RenewalPolicy.defaults(), null, null, validator, () -> {
						}), elected));
		this.member.open();
		this.member.observed(null, Instant.now());
		await().atMost(Duration.ofSeconds(10)).until(() -> vault.simulator().kvRead(KEY) != null);
		String first = vault.simulator().kvRead(KEY).get("lease_id").toString();
		assertThat(vault.simulator().kvRead(KEY)).containsEntry("generation", 1);
		// the ceiling (12 s) makes the leader rotate; its next two grants fail the check
		await().atMost(Duration.ofSeconds(20)).until(() -> refusals.get() == 2);
		assertThat(vault.simulator().kvRead(KEY)).containsEntry("lease_id", first).containsEntry("generation", 1);
		await().atMost(Duration.ofSeconds(15))
			.until(() -> !first.equals(vault.simulator().kvRead(KEY).get("lease_id")));
		Map<String, Object> published = vault.simulator().kvRead(KEY);
		assertThat(published).containsEntry("generation", 2);
		// the entry's metadata is tagged right after the write, by a request of its own
		await().atMost(Duration.ofSeconds(5))
			.until(() -> "2".equals(vault.simulator().kvCustomMetadata(KEY).get("generation")));
		// the rejected grants were revoked, with the group token
		List<JournalEntry> revocations = vault.simulator()
			.journal((entry) -> entry.path().equals("sys/leases/revoke") && entry.status() == 204);
		assertThat(revocations).hasSizeGreaterThanOrEqualTo(2);
		String groupToken = published.get("token").toString();
		assertThat(revocations).extracting(JournalEntry::accessor)
			.containsOnly(vault.simulator()
				.journal((entry) -> entry.path().equals("sys/leases/renew")
						|| entry.path().equals("database/creds/orders"))
				.get(0)
				.accessor());
		// the group token outlives the instance that made it
		vault.simulator().revokeToken(token);
		assertThat(vault.simulator().isTokenAlive(groupToken)).isTrue();
	}

	/**
	 * A group token whose role gives it an explicit max TTL is replaced at its ceiling
	 * (the published token is not taken back: it cannot be renewed past its end), and the
	 * shared grant moves to the new token before the old one ends: the group never
	 * publishes a grant that Vault revoked with its token.
	 */
	@Test
	void aGroupTokenAtItsExplicitMaxTtlIsReplacedAndTheSharedGrantMovesBeforeItEnds() {
		try (CapturedLogs logs = new CapturedLogs()) {
			aGroupTokenAtItsExplicitMaxTtl();
			assertThat(logs.text()).doesNotContain("lost (");
		}
	}

	private void aGroupTokenAtItsExplicitMaxTtl() {
		String key = "leasekeeper/capped/orders-db";
		String token = vault.simulator().createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member");
		VaultTemplate template = new VaultTemplate(VaultEndpoint.from(URI.create(vault.simulator().uri().toString())),
				new TokenAuthentication(token));
		GroupStore store = new GroupStore(template, "secret/data/" + key);
		this.member = new GroupMember("capped", "orders-db", "leader-1", store, new DefaultLockRegistry(),
				Duration.ofSeconds(3), this.scheduler, Duration.ofSeconds(2), new SplittableRandom(1),
				(elected) -> new GroupLeader(new GroupLeader.Spec("orders-db", "database/creds/orders", "capped",
						"capped-group", store, template, this.scheduler, Clock.systemUTC(), RenewalPolicy.defaults(),
						RenewalPolicy.defaults(), null, null, (data) -> {
						}, () -> {
						}), elected));
		this.member.open();
		this.member.observed(null, Instant.now());
		await().atMost(Duration.ofSeconds(10)).until(() -> vault.simulator().kvRead(key) != null);
		Set<Object> tokens = new LinkedHashSet<>();
		// two and a half of the tokens' lives: the published grant is alive throughout
		await().during(Duration.ofSeconds(20)).atMost(Duration.ofSeconds(25)).until(() -> {
			Map<String, Object> published = vault.simulator().kvRead(key);
			tokens.add(published.get("token"));
			return vault.simulator().isLeaseAlive(published.get("lease_id").toString());
		});
		assertThat(tokens).as("group tokens published").hasSizeGreaterThanOrEqualTo(3);
		// each token made was published (the last one perhaps not yet)
		assertThat(vault.simulator().journal((entry) -> entry.path().equals("auth/token/create/capped-group")))
			.hasSizeBetween(tokens.size(), tokens.size() + 1);
	}

}
