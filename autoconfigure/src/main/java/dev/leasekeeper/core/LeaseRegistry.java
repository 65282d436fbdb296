package dev.leasekeeper.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * The leases of an application, by name. Starts token leases before the leases obtained
 * under them, and stops (revokes) them in the opposite order: a token's revocation
 * revokes every lease it created.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class LeaseRegistry {

	private static final Log logger = LogFactory.getLog(LeaseRegistry.class);

	private final Map<String, ManagedLease> leases;

	/**
	 * Create a new registry.
	 * @param leases the leases; names must be unique
	 */
	public LeaseRegistry(Collection<ManagedLease> leases) {
		Map<String, ManagedLease> byName = new LinkedHashMap<>();
		for (ManagedLease lease : leases) {
			ManagedLease previous = byName.put(lease.getName(), lease);
			Assert.isTrue(previous == null, () -> "Lease name '" + lease.getName() + "' is declared twice");
		}
		this.leases = Collections.unmodifiableMap(byName);
	}

	List<ManagedLease> leases() {
		return List.copyOf(this.leases.values());
	}

	/**
	 * Return the lease with the given name.
	 * @param name the lease's name
	 * @return the lease, or empty
	 */
	public Optional<LeaseRenewer> get(String name) {
		return Optional.ofNullable(this.leases.get(name));
	}

	/**
	 * Return every lease, in declaration order.
	 * @return the leases
	 */
	public List<LeaseRenewer> all() {
		return List.copyOf(this.leases.values());
	}

	/**
	 * Start every lease: tokens first.
	 */
	public void start() {
		for (ManagedLease lease : ordered(true)) {
			lease.start();
		}
	}

	/**
	 * Stop every lease, the leases obtained under a token before the token, each group
	 * bounded by {@code timeout}. Best-effort: a lease that does not stop in time is
	 * logged and left to its TTL.
	 * @param revoke whether to revoke the grants held
	 * @param timeout how long to wait for each group
	 */
	public void stop(boolean revoke, Duration timeout) {
		await(stopSecretLeases(revoke), timeout);
		await(stopTokenLeases(revoke), timeout);
	}

	/**
	 * Stop every lease that is not a token lease.
	 * @param revoke whether to revoke the grants held
	 * @return a future that completes when they are stopped
	 */
	public CompletableFuture<Void> stopSecretLeases(boolean revoke) {
		return stopAll(this.leases.values().stream().filter((lease) -> !isToken(lease)).toList(), revoke);
	}

	/**
	 * Stop every token lease; call after {@link #stopSecretLeases(boolean)}.
	 * @param revoke whether to revoke the grants held
	 * @return a future that completes when they are stopped
	 */
	public CompletableFuture<Void> stopTokenLeases(boolean revoke) {
		return stopAll(this.leases.values().stream().filter(this::isToken).toList(), revoke);
	}

	private CompletableFuture<Void> stopAll(List<ManagedLease> group, boolean revoke) {
		return CompletableFuture
			.allOf(group.stream().map((lease) -> lease.stop(revoke)).toArray(CompletableFuture[]::new));
	}

	private void await(CompletableFuture<Void> stopped, Duration timeout) {
		try {
			stopped.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			logger.warn("Leases did not stop within " + timeout + "; their TTL will end them");
		}
		catch (ExecutionException ex) {
			logger.warn("Stopping leases failed", ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private List<ManagedLease> ordered(boolean tokensFirst) {
		List<ManagedLease> ordered = new ArrayList<>();
		this.leases.values().stream().filter((lease) -> isToken(lease) == tokensFirst).forEach(ordered::add);
		this.leases.values().stream().filter((lease) -> isToken(lease) != tokensFirst).forEach(ordered::add);
		return ordered;
	}

	private boolean isToken(ManagedLease lease) {
		return this.leases.values().stream().anyMatch((other) -> other.getToken() == lease);
	}

}
