package dev.leasekeeper.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;

import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.RenewalPolicy;

import org.jspecify.annotations.Nullable;

/**
 * A renewal rule, as one instance of a fleet applies it to its one lease. Each rule
 * brings its own error handling, as its library does by default.
 */
abstract class FleetRule {

	final String name;

	/** Whether the rule revokes a lease it replaced (a request the others never send). */
	final boolean revokesReplaced;

	FleetRule(String name, boolean revokesReplaced) {
		this.name = name;
		this.revokesReplaced = revokesReplaced;
	}

	/**
	 * Deploy instance {@code index} at {@code at}: it obtains its lease and from then on
	 * keeps it by the rule.
	 */
	abstract void deploy(Fleet fleet, int index, Instant at, SplittableRandom random);

	/** (a) Leasekeeper: the real {@link ManagedLease} and {@code RenewalSchedule}. */
	static FleetRule leasekeeper(String name, double firstRenewalSpread) {
		return leasekeeper(name, firstRenewalSpread, null);
	}

	/**
	 * (a) Leasekeeper with the lease's max TTL declared ({@code max-ttl}), or learnt from
	 * the first capped renewal when {@code maxTtl} is {@code null}.
	 */
	static FleetRule leasekeeper(String name, double firstRenewalSpread, @Nullable Duration maxTtl) {
		RenewalPolicy policy = RenewalPolicy.defaults().toBuilder().firstRenewalSpread(firstRenewalSpread).build();
		return new FleetRule(name, true) {

			@Override
			void deploy(Fleet fleet, int index, Instant at, SplittableRandom random) {
				ManagedLease lease = ManagedLease.builder("lease-" + index, fleet.vault.source(), fleet.scheduler)
					.policy(policy)
					.maxTtl(maxTtl)
					.random(random)
					.listener(new LeaseListener() {

						@Override
						public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
							fleet.lost.set(index);
						}

					})
					.build();
				fleet.at(at, lease::start);
			}

		};
	}

	/**
	 * (b) Spring Vault's {@code SecretLeaseContainer}: renew at max(10 s, TTL − 60 s), no
	 * jitter, no retry; a renewal that returns 10 s or less marks the lease expired and a
	 * rotating secret is obtained again; on error the lease is dropped (the default).
	 */
	static FleetRule secretLeaseContainer() {
		return new FleetRule("(b) SecretLeaseContainer", false) {

			@Override
			void deploy(Fleet fleet, int index, Instant at, SplittableRandom random) {
				fleet.at(at, () -> acquire(fleet, index));
			}

			private void acquire(Fleet fleet, int index) {
				try {
					FleetVault.Lease lease = fleet.vault.acquire(fleet.now());
					schedule(fleet, index, lease, fleet.vault.ttl);
				}
				catch (LeaseSourceException ex) {
					fleet.lost.set(index);
				}
			}

			private void schedule(Fleet fleet, int index, FleetVault.Lease lease, Duration ttl) {
				Duration delay = ttl.minusSeconds(60);
				fleet.after((delay.compareTo(Duration.ofSeconds(10)) < 0) ? Duration.ofSeconds(10) : delay,
						() -> renew(fleet, index, lease));
			}

			private void renew(Fleet fleet, int index, FleetVault.Lease lease) {
				try {
					Duration granted = fleet.vault.renew(lease, fleet.now());
					if (granted.compareTo(Duration.ofSeconds(10)) <= 0) {
						acquire(fleet, index);
					}
					else {
						schedule(fleet, index, lease, granted);
					}
				}
				catch (LeaseSourceException ex) {
					fleet.lost.set(index);
				}
			}

		};
	}

	/**
	 * (c) The worker loop of seed 003: every 30 s × U(0.8, 1.2) renew the lease; when it
	 * is gone, log in and fetch a new one; on failure back off min(30 × 2^f, 300) s ×
	 * U(0.5, 1) and exit after more than 5 failures in a row.
	 */
	static FleetRule fixedLoop() {
		return new FleetRule("(c) 30 s loop, ±20 % (seed 003)", false) {

			@Override
			void deploy(Fleet fleet, int index, Instant at, SplittableRandom random) {
				fleet.at(at, () -> {
					try {
						new Worker(fleet, index, random, fleet.vault.acquire(fleet.now())).next();
					}
					catch (LeaseSourceException ex) {
						fleet.lost.set(index);
					}
				});
			}

			final class Worker {

				private final Fleet fleet;

				private final int index;

				private final SplittableRandom random;

				private FleetVault.Lease lease;

				private int failures;

				Worker(Fleet fleet, int index, SplittableRandom random, FleetVault.Lease lease) {
					this.fleet = fleet;
					this.index = index;
					this.random = random;
					this.lease = lease;
				}

				void maintain() {
					try {
						this.fleet.vault.renew(this.lease, this.fleet.now());
						this.failures = 0;
					}
					catch (LeaseSourceException ex) {
						if (ex.isCredentialGone()) {
							reauthenticate();
						}
						else {
							this.failures++;
						}
					}
					if (this.failures > 5) {
						// raise SystemExit: the instance stops holding anything
						this.fleet.lost.set(this.index);
						return;
					}
					next();
				}

				private void reauthenticate() {
					if (this.fleet.vault.isExpired(this.lease, this.fleet.now())
							&& this.fleet.now().isBefore(this.lease.issued.plus(this.fleet.vault.maxTtl))) {
						// expired before its ceiling: it lapsed in the holder's hands
						this.fleet.lost.set(this.index);
					}
					try {
						this.lease = this.fleet.vault.acquire(this.fleet.now());
						this.failures = 0;
					}
					catch (LeaseSourceException ex) {
						this.failures++;
					}
				}

				void next() {
					double delay = (this.failures == 0) ? 30 * this.random.nextDouble(0.8, 1.2)
							: Math.min(30 * Math.pow(2, this.failures), 300) * this.random.nextDouble(0.5, 1.0);
					this.fleet.after(Fleet.seconds(delay), this::maintain);
				}

			}

		};
	}

	/**
	 * (d) Vault's Go {@code LifetimeWatcher}, restarted on a new lease when it is done
	 * (as Vault Agent does): renew at once, then sleep ⅔·TTL + ⅓·grace with grace drawn
	 * in [10 %, 20 %) of the TTL while the TTL grows; done when the time left, less the
	 * sleep ahead, is within the grace. On errors the sleep is the Go library's
	 * exponential back-off (10 s, multiplier 2, ±50 %, at most 5 min) and the same test
	 * ends it: the watcher is then restarted on a new lease.
	 */
	static FleetRule lifetimeWatcher() {
		return new FleetRule("(d) LifetimeWatcher", false) {

			@Override
			void deploy(Fleet fleet, int index, Instant at, SplittableRandom random) {
				Watcher watcher = new Watcher(fleet, index, random);
				fleet.at(at, watcher::start);
			}

			final class Watcher {

				private final Fleet fleet;

				private final int index;

				private final SplittableRandom random;

				private FleetVault.@Nullable Lease lease;

				private Instant expiry = Instant.MIN;

				private double backOff;

				private double priorTtl;

				private double grace;

				Watcher(Fleet fleet, int index, SplittableRandom random) {
					this.fleet = fleet;
					this.index = index;
					this.random = random;
				}

				void start() {
					if (this.lease != null && !this.fleet.now().isBefore(this.expiry)) {
						// the lease it was replacing ran out before a new one came
						this.fleet.lost.set(this.index);
					}
					try {
						this.lease = this.fleet.vault.acquire(this.fleet.now());
						this.expiry = this.fleet.now().plus(this.fleet.vault.ttl);
						this.backOff = 0;
						this.priorTtl = 0;
						renew();
					}
					catch (LeaseSourceException ex) {
						// the agent retries its fetch on the same back-off
						this.fleet.after(Fleet.seconds(nextBackOff()), this::start);
					}
				}

				void renew() {
					double left;
					double sleep;
					try {
						Duration granted = this.fleet.vault.renew(this.lease, this.fleet.now());
						this.expiry = this.fleet.now().plus(granted);
						this.backOff = 0;
						left = granted.toNanos() / 1e9;
						if (left > this.priorTtl) {
							// a new grace only while the lease is extending: once capped,
							// the grace of the full TTL is what notices the ceiling
							this.grace = left * this.random.nextDouble(0.1, 0.2);
						}
						this.priorTtl = left;
						sleep = left * 2 / 3 + this.grace / 3;
					}
					catch (LeaseSourceException ex) {
						if (ex.isCredentialGone()) {
							this.fleet.lost.set(this.index);
							start();
							return;
						}
						left = Duration.between(this.fleet.now(), this.expiry).toNanos() / 1e9;
						sleep = nextBackOff();
					}
					if (left <= this.grace || left - sleep <= this.grace) {
						// done: Vault Agent starts a new watcher on a new lease
						start();
						return;
					}
					this.fleet.after(Fleet.seconds(sleep), this::renew);
				}

				private double nextBackOff() {
					this.backOff = (this.backOff == 0) ? 10 : Math.min(this.backOff * 2, 300);
					return this.backOff * this.random.nextDouble(0.5, 1.5);
				}

			}

		};
	}

}
