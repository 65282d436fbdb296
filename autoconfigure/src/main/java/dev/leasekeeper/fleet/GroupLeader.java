package dev.leasekeeper.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.vault.core.VaultOperations;
import org.springframework.web.client.RestOperations;

import dev.leasekeeper.core.CeilingAction;
import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.RenewalPolicy;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.vault.SecretLeaseSource;
import dev.leasekeeper.vault.TokenLeaseSource;

/**
 * What the leader of a group does for a shared lease while it leads: it keeps the group
 * token (adopted from the publication, else made from the group's token role) and the
 * shared lease under it with the ordinary engine — renewals, slot rotations, retries —
 * adopting the published grant rather than obtaining another when it takes over; it
 * checks each new grant before it is published (a database credential must open a real
 * connection), and publishes every new grant and every renewal with check-and-set on the
 * version it last wrote. A refused publication means another leader wrote since: this one
 * steps down. Replaced grants are left to expire (followers may still use them until
 * their next read); when the leadership ends, only a grant the group never got is
 * revoked.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class GroupLeader {

	private static final Log logger = LogFactory.getLog(GroupLeader.class);

	private final Spec spec;

	private final GroupMember member;

	private final ExecutorService publications;

	private @Nullable ManagedLease token;

	private @Nullable ManagedLease secret;

	private @Nullable Publication adopted;

	private int version;

	private long generation;

	private volatile @Nullable String publishedLeaseId;

	/**
	 * What a leader needs.
	 *
	 * @param lease the lease's name
	 * @param path the lease's Vault path, such as {@code database/creds/orders}
	 * @param group the group's name
	 * @param tokenRole the token role of the group token
	 * @param store the group's publication of the lease
	 * @param vault Vault, with the instance's own session
	 * @param scheduler the engine's scheduler
	 * @param wallClock the wall clock, for the published instants
	 * @param policy the lease's renewal policy
	 * @param tokenPolicy the group token's renewal policy
	 * @param increment the TTL to ask for at each renewal, or {@code null}
	 * @param maxTtl the lease's max TTL when the application declares it, or {@code null}
	 * to learn it from the first ceiling
	 * @param validator checks a new grant's credential before it is published
	 * @param published told after each publication of a new grant
	 */
	public record Spec(String lease, String path, String group, String tokenRole, GroupStore store,
			VaultOperations vault, LeaseScheduler scheduler, Clock wallClock, RenewalPolicy policy,
			RenewalPolicy tokenPolicy, @Nullable Duration increment, @Nullable Duration maxTtl, Validator validator,
			Runnable published) {
	}

	/**
	 * Checks a new grant's credential before the group gets it.
	 */
	@FunctionalInterface
	public interface Validator {

		/**
		 * Check a credential.
		 * @param data its fields
		 * @throws Exception if it does not work
		 */
		void validate(Map<String, Object> data) throws Exception;

	}

	/**
	 * Create the work of a member elected leader.
	 * @param spec what it needs
	 * @param member the member
	 */
	public GroupLeader(Spec spec, GroupMember member) {
		this.spec = spec;
		this.member = member;
		this.publications = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, "leasekeeper-fleet-publish-" + spec.lease());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Start leading: read what is published, then keep the group token and the shared
	 * lease.
	 */
	synchronized void start() {
		Publication current;
		try {
			current = this.spec.store().read();
		}
		catch (LeaseSourceException ex) {
			this.member.stepDown("cannot read the publication (" + ex.getMessage() + ")");
			return;
		}
		this.adopted = current;
		this.version = (current != null) ? current.version() : 0;
		this.generation = (current != null) ? current.generation() : 0;
		this.publishedLeaseId = (current != null) ? current.leaseId() : null;
		VaultOperations vault = this.spec.vault();
		RestOperations plain = vault.doWithVault((rest) -> rest);
		ManagedLease groupToken = ManagedLease
			.builder(this.spec.lease() + "/group-token",
					new TokenLeaseSource(new GroupTokenAuthentication(this.spec.store(), vault, this.spec.tokenRole(),
							this.spec.group()), plain, this.spec.scheduler().clock()),
					this.spec.scheduler())
			.policy(this.spec.tokenPolicy())
			.revokeReplaced(false)
			// the published token, when still valid, is taken over at its age
			.adoptsFirstGrant(current != null)
			.build();
		SecretLeaseSource leases = new SecretLeaseSource(vault, this.spec.path(), this.spec.scheduler().clock(),
				() -> tokenOf(groupToken));
		ManagedLease shared = ManagedLease
			.builder(this.spec.lease() + "/group", new Adopting(leases, groupToken), this.spec.scheduler())
			.policy(this.spec.policy())
			.increment(this.spec.increment())
			.maxTtl(this.spec.maxTtl())
			// a published grant is taken over at its age: its ceiling is not learnt from
			// it (the group's first leader obtains a new one: its max TTL is used at
			// once)
			.adoptsFirstGrant(current != null)
			.onCeiling(CeilingAction.ROTATE)
			.token(groupToken)
			.revokeReplaced(false)
			.listener(new Publisher(groupToken))
			.build();
		this.token = groupToken;
		this.secret = shared;
		groupToken.start();
		shared.start();
		if (current != null && current.isOverdue(this.spec.wallClock().instant(), GroupLeaseSource.GRACE)) {
			// the last leader is gone late in the lease's window: renew at once
			shared.firstGrant().thenRun(shared::renewNow);
		}
	}

	/**
	 * Stop leading: the group token and the shared lease are left as they are, for the
	 * next leader.
	 */
	synchronized void stop() {
		ManagedLease shared = this.secret;
		ManagedLease groupToken = this.token;
		this.secret = null;
		this.token = null;
		try {
			// what is being published goes out first
			this.publications.shutdown();
			this.publications.awaitTermination(5, TimeUnit.SECONDS);
			if (shared != null) {
				// a grant the group never got (a step-down before its publication) is
				// nobody's: revoked; the published one is the group's: kept
				String held = shared.current().leaseId();
				shared.stop(held != null && !held.equals(this.publishedLeaseId)).get(10, TimeUnit.SECONDS);
			}
			if (groupToken != null) {
				groupToken.stop(false).get(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			logger.warn("Leasekeeper: the leader's leases of " + this.spec.lease() + " did not stop in time ("
					+ ex.getClass().getSimpleName() + ")");
		}
	}

	private static String tokenOf(ManagedLease groupToken) {
		Object token = groupToken.current().data().get(TokenLeaseSource.TOKEN);
		return (token instanceof String value) ? value : "";
	}

	/**
	 * Publish what the shared lease holds now, with check-and-set on the version last
	 * written; a new lease id is a new generation.
	 */
	private void publish(LeaseSnapshot lease, ManagedLease groupToken) {
		Instant expiry = lease.expiry();
		if (lease.leaseId() == null || expiry == null || lease.ttl() == null) {
			return;
		}
		Instant engineNow = this.spec.scheduler().now();
		Instant wallNow = this.spec.wallClock().instant();
		Instant expireAt = wallNow.plus(Duration.between(engineNow, expiry));
		Instant next = lease.nextActionAt();
		// without a planned action, the leader is due no later than two thirds in
		Instant refreshAt = (next != null) ? wallNow.plus(Duration.between(engineNow, next))
				: wallNow.plus(Duration.between(engineNow, expiry).multipliedBy(2).dividedBy(3));
		boolean newGrant = !lease.leaseId().equals(this.publishedLeaseId);
		long published = newGrant ? this.generation + 1 : this.generation;
		Publication publication = new Publication(lease.leaseId(), lease.data(), lease.ttl(), expireAt, refreshAt,
				published, tokenOf(groupToken), this.member.getId(), 0);
		try {
			Publication written = this.spec.store().write(publication, this.version);
			this.version = written.version();
			this.generation = published;
			this.publishedLeaseId = lease.leaseId();
			if (newGrant) {
				this.spec.store().tag(published, this.member.getId());
				logger.info("Leasekeeper: " + this.member.getId() + " published generation " + published + " of "
						+ this.spec.lease() + " for group " + this.spec.group() + " (version " + written.version()
						+ "), expires " + expireAt);
				this.spec.published().run();
			}
		}
		catch (GroupStore.StaleLeaderException ex) {
			this.member.stepDown(ex.getMessage());
		}
		catch (LeaseSourceException ex) {
			logger.warn("Leasekeeper: cannot publish " + this.spec.lease() + " for group " + this.spec.group() + " ("
					+ ex.getErrorClass() + ": " + ex.getMessage() + "); the next renewal publishes again");
		}
	}

	/**
	 * Checks each new grant before the engine takes it, then publishes what the engine
	 * holds after each acquisition, rotation and renewal (off the scheduling thread, in
	 * order).
	 */
	private final class Publisher implements LeaseListener {

		private final ManagedLease groupToken;

		Publisher(ManagedLease groupToken) {
			this.groupToken = groupToken;
		}

		@Override
		public void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) throws Exception {
			if (candidate.leaseId() != null && candidate.leaseId().equals(GroupLeader.this.publishedLeaseId)) {
				// the published grant, adopted: the group already uses it
				return;
			}
			GroupLeader.this.spec.validator().validate(candidate.data());
		}

		@Override
		public void onAcquired(LeaseSnapshot lease) {
			later(lease);
		}

		@Override
		public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
			later(lease);
		}

		@Override
		public void onRenewed(LeaseRenewal renewal) {
			later(renewal.lease());
		}

		private void later(LeaseSnapshot lease) {
			try {
				GroupLeader.this.publications.execute(() -> publish(lease, this.groupToken));
			}
			catch (java.util.concurrent.RejectedExecutionException ex) {
				// no longer leading
			}
		}

	}

	/**
	 * The shared lease's source: its first acquisition adopts the published grant when it
	 * is still valid under the group token held (a takeover keeps the group's
	 * credential); every later one obtains a new lease.
	 */
	private final class Adopting implements LeaseSource {

		private final SecretLeaseSource leases;

		private final ManagedLease groupToken;

		Adopting(SecretLeaseSource leases, ManagedLease groupToken) {
			this.leases = leases;
			this.groupToken = groupToken;
		}

		@Override
		public Grant acquire() throws LeaseSourceException {
			Instant sent = GroupLeader.this.spec.scheduler().now();
			Publication published;
			synchronized (GroupLeader.this) {
				published = GroupLeader.this.adopted;
				GroupLeader.this.adopted = null;
			}
			if (published != null && tokenOf(this.groupToken).equals(published.token())) {
				Duration left = Duration.between(GroupLeader.this.spec.wallClock().instant(), published.expireAt());
				if (left.compareTo(Duration.ofSeconds(1)) > 0) {
					return new Grant(published.leaseId(), left, true, published.data(), List.of(), sent);
				}
			}
			return this.leases.acquire();
		}

		@Override
		public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
			return this.leases.renew(current, increment);
		}

		@Override
		public void revoke(Grant current) throws LeaseSourceException {
			this.leases.revoke(current);
		}

		@Override
		public String describe() {
			return this.leases.describe();
		}

	}

}
