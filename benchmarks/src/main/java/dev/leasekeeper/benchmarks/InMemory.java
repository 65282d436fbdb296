package dev.leasekeeper.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.VirtualTimeLeaseScheduler;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;
import org.springframework.vault.core.lease.SecretLeaseContainer;
import org.springframework.vault.core.lease.domain.Lease;
import org.springframework.vault.core.lease.domain.RequestedSecret;
import org.springframework.vault.support.VaultResponseSupport;

/**
 * The two engines over an in-memory store that grants every request at once: what is
 * measured is the engine, not the store.
 */
final class InMemory {

	static final Duration TTL = Duration.ofHours(1);

	private static final LeaseListener NO_LISTENER = new LeaseListener() {
	};

	private InMemory() {
	}

	/**
	 * The path of lease {@code index}: both engines name the lease by it and get the same
	 * lease id for it ({@link #leaseId}).
	 */
	static String path(int index) {
		return "database/creds/orders-" + index;
	}

	static String leaseId(String path) {
		return path + "/lease";
	}

	/** A source whose every grant lives an hour; no data beyond the lease id. */
	static LeaseSource source(LeaseScheduler scheduler, int index) {
		String leaseId = leaseId(path(index));
		return new LeaseSource() {

			@Override
			public Grant acquire() {
				return new Grant(leaseId, TTL, true, Map.of(), List.of(), scheduler.now());
			}

			@Override
			public Grant renew(Grant current, @Nullable Duration increment) {
				return new Grant(leaseId, TTL, true, Map.of(), List.of(), scheduler.now());
			}

			@Override
			public void revoke(Grant current) {
			}

		};
	}

	/**
	 * Leasekeeper's engine: {@code count} started leases on one virtual-time scheduler.
	 */
	static ManagedLease[] leasekeeper(VirtualTimeLeaseScheduler scheduler, int count) {
		ManagedLease[] leases = leasekeeper(scheduler, count, NO_LISTENER);
		scheduler.runDue();
		return leases;
	}

	/**
	 * Leasekeeper's engine: {@code count} started leases on the given scheduler, each
	 * named by its path, with one listener.
	 */
	static ManagedLease[] leasekeeper(LeaseScheduler scheduler, int count, LeaseListener listener) {
		ManagedLease[] leases = new ManagedLease[count];
		for (int i = 0; i < count; i++) {
			leases[i] = ManagedLease.builder(path(i), source(scheduler, i), scheduler).listener(listener).build();
			leases[i].start();
		}
		return leases;
	}

	/**
	 * Spring Vault's {@link SecretLeaseContainer} with its two store calls answered in
	 * memory ({@code doGetSecrets}, {@code doRenewLease} are its extension points), on
	 * the given task scheduler.
	 */
	static SecretLeaseContainer secretLeaseContainer(TaskScheduler taskScheduler) {
		VaultTemplate unused = new VaultTemplate(VaultEndpoint.create("localhost", 8200),
				new TokenAuthentication("in-memory"));
		SecretLeaseContainer container = new SecretLeaseContainer(unused, taskScheduler) {

			@Override
			protected VaultResponseSupport<Map<String, Object>> doGetSecrets(RequestedSecret requestedSecret) {
				VaultResponseSupport<Map<String, Object>> response = new VaultResponseSupport<>();
				response.setLeaseId(leaseId(requestedSecret.getPath()));
				response.setLeaseDuration(TTL.toSeconds());
				response.setRenewable(true);
				response.setData(Map.of());
				return response;
			}

			@Override
			protected Lease doRenewLease(RequestedSecret requestedSecret, Lease lease) {
				return Lease.of(lease.getLeaseId(), TTL, true);
			}

		};
		container.afterPropertiesSet();
		return container;
	}

	static Instant origin() {
		return Instant.parse("2026-01-01T00:00:00Z");
	}

}
