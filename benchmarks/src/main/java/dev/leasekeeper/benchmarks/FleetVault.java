package dev.leasekeeper.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.LeaseSourceException;

/**
 * Vault as the fleet benchmarks see it: every lease has the same TTL and max TTL, a
 * renewal is granted {@code min(ttl, issued + maxTtl - now)} with Vault's "capped"
 * warning when the max TTL cut it (VAULT_SEMANTICS.md §1), a renewal after the expiry is
 * refused as Vault refuses it, and an outage refuses everything. Every request is counted
 * in a per-minute histogram: acquisitions, renewals and revocations alike.
 */
final class FleetVault {

	private static final String CAPPED = "TTL of \"1h\" exceeded the effective max_ttl; TTL value is capped accordingly";

	final Duration ttl;

	final Duration maxTtl;

	private final Supplier<Instant> clock;

	private final Instant origin;

	final int[] perMinute;

	private @Nullable Instant outageFrom;

	private @Nullable Instant outageTo;

	private long sequence;

	/** When each lease was issued: its ceiling is that plus the max TTL. */
	final List<Instant> issued = new java.util.ArrayList<>();

	long revocations;

	FleetVault(Duration ttl, Duration maxTtl, Supplier<Instant> clock, Instant origin, Duration horizon) {
		this.ttl = ttl;
		this.maxTtl = maxTtl;
		this.clock = clock;
		this.origin = origin;
		this.perMinute = new int[(int) horizon.toMinutes() + 2];
	}

	void outage(Instant from, Duration length) {
		this.outageFrom = from;
		this.outageTo = from.plus(length);
	}

	boolean isDown(Instant at) {
		return this.outageFrom != null && !at.isBefore(this.outageFrom) && at.isBefore(this.outageTo);
	}

	long requests() {
		long total = 0;
		for (int count : this.perMinute) {
			total += count;
		}
		return total;
	}

	/** One lease as Vault holds it. */
	static final class Lease {

		final String id;

		final Instant issued;

		Instant expiry;

		Lease(String id, Instant issued, Instant expiry) {
			this.id = id;
			this.issued = issued;
			this.expiry = expiry;
		}

	}

	Lease acquire(Instant now) throws LeaseSourceException {
		count(now);
		if (isDown(now)) {
			throw LeaseSourceException.transientFailure("io", "connection refused", null);
		}
		this.issued.add(now);
		return new Lease("database/creds/orders/" + (++this.sequence), now, now.plus(this.ttl));
	}

	/** Revoke a lease (refused during an outage). */
	void revoke(Instant now) throws LeaseSourceException {
		count(now);
		this.revocations++;
		if (isDown(now)) {
			throw LeaseSourceException.transientFailure("io", "connection refused", null);
		}
	}

	boolean isExpired(Lease lease, Instant now) {
		return !now.isBefore(lease.expiry);
	}

	/** Renew; return the granted TTL. */
	Duration renew(Lease lease, Instant now) throws LeaseSourceException {
		count(now);
		if (isDown(now)) {
			throw LeaseSourceException.transientFailure("io", "connection refused", null);
		}
		if (!now.isBefore(lease.expiry)) {
			throw LeaseSourceException.gone("lease-not-found", "lease not found");
		}
		Duration left = Duration.between(now, lease.issued.plus(this.maxTtl));
		Duration granted = (left.compareTo(this.ttl) < 0) ? left : this.ttl;
		lease.expiry = now.plus(granted);
		return granted;
	}

	private void count(Instant now) {
		int minute = (int) Duration.between(this.origin, now).toMinutes();
		if (minute >= 0 && minute < this.perMinute.length) {
			this.perMinute[minute]++;
		}
	}

	/**
	 * The engine's view: a {@link LeaseSource} over this Vault, reading the engine's
	 * clock.
	 */
	LeaseSource source() {
		return new LeaseSource() {

			private @Nullable Lease lease;

			@Override
			public Grant acquire() throws LeaseSourceException {
				Instant now = FleetVault.this.clock.get();
				Lease acquired = FleetVault.this.acquire(now);
				this.lease = acquired;
				return new Grant(acquired.id, FleetVault.this.ttl, true, Map.of(), List.of(), now);
			}

			@Override
			public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
				Instant now = FleetVault.this.clock.get();
				Lease held = this.lease;
				if (held == null || !held.id.equals(current.leaseId())) {
					throw LeaseSourceException.gone("lease-not-found", "lease not found");
				}
				Duration granted = FleetVault.this.renew(held, now);
				List<String> warnings = granted.compareTo(FleetVault.this.ttl) < 0 ? List.of(CAPPED) : List.of();
				return new Grant(current.leaseId(), granted, true, Map.of(), warnings, now);
			}

			@Override
			public void revoke(Grant current) throws LeaseSourceException {
				FleetVault.this.revoke(FleetVault.this.clock.get());
			}

		};
	}

}
