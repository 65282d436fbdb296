package dev.leasekeeper.autoconfigure;

import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Certificate;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.LeaseSettings;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.OnLost;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Token;
import dev.leasekeeper.core.CeilingAction;
import dev.leasekeeper.core.FollowedToken;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.event.EventPublishingLeaseListener;
import dev.leasekeeper.tls.CertificateSource;
import dev.leasekeeper.vault.SecretLeaseSource;
import dev.leasekeeper.vault.StaticCredentialSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.support.VaultCertificateRequest;

/**
 * Builds the renewer of each declared lease from its properties.
 *
 * @author Leasekeeper
 */
final class LeaseRenewerFactory {

	private final LeasekeeperProperties properties;

	private final LeaseScheduler scheduler;

	private final ApplicationEventPublisher publisher;

	private final Executor events;

	private final LeaseListener exitOnLoss;

	private final ObjectProvider<LeaseConsumer> consumers;

	private final ObjectProvider<LeaseListenerProvider> listeners;

	private final LeaseListenerThreads listenerThreads;

	LeaseRenewerFactory(LeasekeeperProperties properties, LeaseScheduler scheduler, ApplicationEventPublisher publisher,
			Executor events, LeaseListener exitOnLoss, ObjectProvider<LeaseConsumer> consumers,
			ObjectProvider<LeaseListenerProvider> listeners, LeaseListenerThreads listenerThreads) {
		this.properties = properties;
		this.scheduler = scheduler;
		this.publisher = publisher;
		this.events = events;
		this.exitOnLoss = exitOnLoss;
		this.consumers = consumers;
		this.listeners = listeners;
		this.listenerThreads = listenerThreads;
	}

	ManagedLeaseRenewer secretLease(String name, VaultOperations vault, @Nullable ManagedLeaseRenewer token,
			@Nullable FollowedToken followed) {
		Lease lease = this.properties.getLeases().get(name);
		if (lease == null) {
			throw new IllegalStateException("No lease declared under leasekeeper.leases." + name);
		}
		if (lease.isStatic()) {
			// no lease: it does not die with the token, and is read again after each of
			// Vault's rotations
			LeaseSource source = new StaticCredentialSource(vault, lease.getPath(), this.scheduler.clock(),
					lease.getRefreshSpread(), new java.util.SplittableRandom());
			return renewer(builder(name, lease, source).build(), lease, ManagedLeaseRenewer.SECRET_PHASE);
		}
		LeaseSource source = new SecretLeaseSource(vault, lease.getPath(), this.scheduler.clock());
		ManagedLease.Builder builder = builder(name, lease, source).increment(lease.getIncrement())
			.maxTtl(lease.getMaxTtl())
			.onCeiling(lease.getOnCeiling())
			.token((token != null) ? token.getLease() : null)
			.followedToken(followed);
		return renewer(builder.build(), lease, ManagedLeaseRenewer.SECRET_PHASE);
	}

	boolean isGroupLease(String name) {
		Lease lease = this.properties.getLeases().get(name);
		return lease != null && lease.getSharing() == LeasekeeperProperties.Sharing.GROUP;
	}

	/**
	 * Make an instance's view of a lease its group shares: read again at each grant's
	 * refreshAfter, a new grant adopted as a rotation ({@link RotationCause#PUBLISHED}),
	 * nothing renewed or revoked.
	 */
	ManagedLeaseRenewer groupLease(String name, LeaseSource source) {
		Lease lease = this.properties.getLeases().get(name);
		if (lease == null) {
			throw new IllegalStateException("No lease declared under leasekeeper.leases." + name);
		}
		ManagedLeaseRenewer renewer = renewer(
				builder(name, lease, source).refreshCause(RotationCause.PUBLISHED).build(), lease,
				ManagedLeaseRenewer.SECRET_PHASE);
		// the group's first leader is elected once the application's beans are made
		renewer.awaitAtStart();
		return renewer;
	}

	ManagedLeaseRenewer certificate(String name, VaultOperations vault, Certificates certificates) {
		Certificate certificate = this.properties.getCertificates().get(name);
		if (certificate == null) {
			throw new IllegalStateException("No certificate declared under leasekeeper.certificates." + name);
		}
		VaultCertificateRequest.VaultCertificateRequestBuilder request = VaultCertificateRequest.builder()
			.commonName(certificate.getCommonName())
			.altNames(certificate.getAltNames().stream().map(String::strip).toList())
			.ipSubjectAltNames(certificate.getIpSans().stream().map(String::strip).toList());
		if (certificate.getTtl() != null) {
			request.ttl(certificate.getTtl());
		}
		LeaseSource source = new CertificateSource(vault, certificate.getPath(), request.build(),
				this.scheduler.clock());
		// the bundle takes each certificate before anyone hears of it, as a pool does
		ManagedLease.Builder builder = builder(name, certificate, source,
				certificates.bundles().consumer(name, certificate.sslBundleOr(name)))
			.onCeiling(CeilingAction.ROTATE)
			.listener(certificates.listener(name));
		return renewer(builder.build(), certificate, ManagedLeaseRenewer.SECRET_PHASE);
	}

	ManagedLeaseRenewer tokenLease(LeaseSource source) {
		Token token = this.properties.getToken();
		return renewer(builder("vault-token", token, source).increment(token.getIncrement()).build(), token,
				ManagedLeaseRenewer.TOKEN_PHASE);
	}

	private ManagedLease.Builder builder(String name, LeaseSettings settings, LeaseSource source,
			LeaseListener... consumers) {
		LeaseSettings defaults = this.properties.getDefaults();
		boolean exit = settings.onLost(defaults) == OnLost.EXIT;
		ManagedLease.Builder builder = ManagedLease.builder(name, source, this.scheduler);
		for (LeaseListener consumer : consumers) {
			builder.listener(consumer);
		}
		// the synchronous consumers first: they take a new credential before anyone hears
		// of it
		this.consumers.orderedStream()
			.filter((consumer) -> consumer.leaseName().equals(name))
			.forEach((consumer) -> builder.listener(consumer.listener()));
		// an application's listeners on threads of their own: they cannot stop the clock
		this.listeners.orderedStream()
			.forEach((provider) -> builder.listener((provider instanceof InlineLeaseListenerProvider)
					? provider.listenerFor(name) : new DispatchedLeaseListener(name, provider.listenerFor(name),
							this.listenerThreads.executorFor(provider))));
		// the properties were validated when bound: the policy is allowed
		builder.policy(settings.policy(defaults))
			.reacquireOnLoss(!exit)
			.revokeReplaced(settings.revokeReplaced(defaults))
			.listener(new EventPublishingLeaseListener(name, this.publisher, this.events));
		if (exit) {
			builder.listener(this.exitOnLoss);
		}
		return builder;
	}

	private ManagedLeaseRenewer renewer(ManagedLease lease, LeaseSettings settings, int phase) {
		return new ManagedLeaseRenewer(lease, settings.revokeOnShutdown(this.properties.getDefaults()),
				this.properties.isFailFast(), this.properties.getStartupTimeout(), this.properties.getShutdownTimeout(),
				phase);
	}

}
