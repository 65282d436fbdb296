package dev.leasekeeper.benchmarks;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import dev.leasekeeper.core.ExecutorLeaseScheduler;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.RenewalPolicy;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.fleet.GroupLeader;
import dev.leasekeeper.fleet.GroupLeaseSource;
import dev.leasekeeper.fleet.GroupMember;
import dev.leasekeeper.fleet.GroupStore;
import dev.leasekeeper.testkit.JournalEntry;
import dev.leasekeeper.testkit.VaultSimulator;
import dev.leasekeeper.vault.SecretLeaseSource;

import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;

/**
 * Group sharing against instance sharing, for groups of N members: every member a real
 * engine (its own Vault token, its own view of the lease) against the testkit simulator
 * over HTTP, in real time with a short TTL. Counted from the simulator's journal over
 * whole renewal periods once every member holds the credential: renewals, KV reads and
 * acquisitions per period, the live Vault leases and database users (one per lease) at
 * the end, and, for the group, the peak requests per second to Vault in the minute after
 * its leader stops (the followers take over at deadlines spread over the failover
 * window). The members share one in-memory lock registry (they live in one JVM); the
 * election is Spring Integration's LockRegistryLeaderInitiator as in production.
 */
final class GroupSharing {

	private final int[] sizes;

	private final Duration ttl;

	private final int periods;

	private final boolean failover;

	GroupSharing(boolean smoke) {
		// the smoke run only shows that it runs: no failover to wait for
		this.failover = !smoke;
		this.sizes = smoke ? new int[] { 2 } : new int[] { 1, 5, 20, 50 };
		this.ttl = smoke ? Duration.ofSeconds(9) : Duration.ofSeconds(30);
		this.periods = smoke ? 1 : 3;
	}

	String table() throws Exception {
		StringBuilder table = new StringBuilder();
		table.append("Group sharing against instance sharing: N members, TTL ")
			.append(this.ttl.toSeconds())
			.append(" s (renewal period ")
			.append(period().toSeconds())
			.append(" s), counted over ")
			.append(this.periods)
			.append(" periods once every member holds the credential\n\n");
		table.append("| Members | Sharing | Renewals per period | KV reads per period | Acquisitions per period |"
				+ " Live Vault leases | Database users | Failover peak req/s |\n");
		table.append("|---|---|---|---|---|---|---|---|\n");
		for (int members : this.sizes) {
			for (boolean group : new boolean[] { false, true }) {
				long started = System.nanoTime();
				Row row = group ? group(members) : instances(members);
				table.append(String.format(java.util.Locale.ROOT, "| %d | %s | %.1f | %.1f | %.1f | %d | %d | %s |%n",
						members, group ? "group" : "instance", row.renewals, row.reads, row.acquisitions, row.leases,
						row.leases, (row.failoverPeak < 0) ? "—" : Integer.toString(row.failoverPeak)));
				System.out.printf("fleet: %d members, %s sharing, in %.1f s%n", members, group ? "group" : "instance",
						(System.nanoTime() - started) / 1e9);
			}
		}
		return table.toString();
	}

	private Duration period() {
		return this.ttl.multipliedBy(2).dividedBy(3);
	}

	private VaultSimulator simulator() {
		return VaultSimulator.builder()
			.databaseRole("orders", this.ttl, Duration.ofHours(1))
			.tokenRole("bench-group", true, Duration.ofMinutes(10), "fleet-grant")
			.policy("fleet-grant", "path \"database/creds/orders\" { capabilities = [\"read\"] }")
			.policy("fleet-member", """
					path "secret/data/leasekeeper/*" { capabilities = ["create", "read", "update"] }
					path "secret/metadata/leasekeeper/*" { capabilities = ["create", "read", "update"] }
					path "auth/token/create/bench-group" { capabilities = ["update"] }
					""")
			.build()
			.start();
	}

	private static VaultTemplate client(VaultSimulator vault, String token) {
		return new VaultTemplate(VaultEndpoint.from(URI.create(vault.uri().toString())),
				new TokenAuthentication(token));
	}

	/** N members, each with its own lease: the ordinary engine with every default. */
	private Row instances(int members) throws Exception {
		try (VaultSimulator vault = simulator(); ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(8)) {
			List<ManagedLease> leases = new ArrayList<>();
			for (int i = 0; i < members; i++) {
				VaultTemplate client = client(vault,
						vault.createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member"));
				ManagedLease lease = ManagedLease
					.builder("orders-db", new SecretLeaseSource(client, "database/creds/orders", scheduler.clock()),
							scheduler)
					.build();
				lease.start();
				leases.add(lease);
			}
			for (ManagedLease lease : leases) {
				lease.firstGrant().get(30, TimeUnit.SECONDS);
			}
			Row row = measure(vault);
			for (ManagedLease lease : leases) {
				lease.stop(false).get(10, TimeUnit.SECONDS);
			}
			return row;
		}
	}

	/** N members sharing one grant: one leader, N views. */
	private Row group(int members) throws Exception {
		try (VaultSimulator vault = simulator(); ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(8)) {
			DefaultLockRegistry locks = new DefaultLockRegistry();
			List<GroupMember> group = new ArrayList<>();
			List<ManagedLease> views = new ArrayList<>();
			for (int i = 0; i < members; i++) {
				VaultTemplate client = client(vault,
						vault.createToken(null, VaultSimulator.APPLICATION_POLICY, "fleet-member"));
				GroupStore store = new GroupStore(client, "secret/data/leasekeeper/bench/orders-db");
				GroupMember member = new GroupMember("bench", "orders-db", "member-" + i, store, locks,
						Duration.ofSeconds(3), scheduler, Duration.ofSeconds(5), new SplittableRandom(i),
						(elected) -> new GroupLeader(new GroupLeader.Spec("orders-db", "database/creds/orders", "bench",
								"bench-group", store, client, scheduler, Clock.systemUTC(), RenewalPolicy.defaults(),
								RenewalPolicy.defaults(), null, null, (data) -> {
								}, () -> {
								}), elected));
				ManagedLease view = ManagedLease
					.builder("orders-db",
							new GroupLeaseSource(store, member, scheduler.clock(), Clock.systemUTC(),
									Duration.ofSeconds(2), new SplittableRandom(1000 + i)),
							scheduler)
					.refreshCause(RotationCause.PUBLISHED)
					.build();
				member.open();
				view.start();
				group.add(member);
				views.add(view);
			}
			for (ManagedLease view : views) {
				view.firstGrant().get(60, TimeUnit.SECONDS);
			}
			Row row = measure(vault);
			if (members == 1 || !this.failover) {
				// no follower to take over, or no time for it
				group.forEach(GroupMember::close);
				for (ManagedLease view : views) {
					view.stop(false).get(10, TimeUnit.SECONDS);
				}
				return row;
			}
			// the leader stops: the followers take over
			GroupMember leader = group.stream().filter(GroupMember::isLeader).findFirst().orElseThrow();
			vault.clearJournal();
			Instant stopped = Instant.now();
			leader.close();
			// the followers notice at their next read (the leader's next renewal, plus
			// the grace
			// and the read spread), then take over within the failover window
			Thread.sleep(period().plusSeconds(2 + 2 + 5 + 4).toMillis());
			row.failoverPeak = peakPerSecond(vault.journal((entry) -> !entry.at().isBefore(stopped)));
			for (GroupMember member : group) {
				member.close();
			}
			for (ManagedLease view : views) {
				view.stop(false).get(10, TimeUnit.SECONDS);
			}
			return row;
		}
	}

	private Row measure(VaultSimulator vault) throws InterruptedException {
		vault.clearJournal();
		Thread.sleep(period().multipliedBy(this.periods).toMillis());
		List<JournalEntry> journal = vault.journal();
		Row row = new Row();
		row.renewals = count(journal, "sys/leases/renew") / (double) this.periods;
		row.reads = journal.stream()
			.filter((entry) -> entry.path().startsWith("secret/data/") && entry.method().equals("GET"))
			.count() / (double) this.periods;
		row.acquisitions = count(journal, "database/creds/orders") / (double) this.periods;
		row.leases = vault.liveLeases("database/creds/orders/").size();
		return row;
	}

	private static long count(List<JournalEntry> journal, String path) {
		return journal.stream().filter((entry) -> entry.path().equals(path)).count();
	}

	private static int peakPerSecond(List<JournalEntry> journal) {
		Map<Long, Integer> perSecond = new TreeMap<>();
		for (JournalEntry entry : journal) {
			perSecond.merge(entry.at().getEpochSecond(), 1, Integer::sum);
		}
		return perSecond.values().stream().mapToInt(Integer::intValue).max().orElse(0);
	}

	private static final class Row {

		double renewals;

		double reads;

		double acquisitions;

		int leases;

		int failoverPeak = -1;

	}

}
