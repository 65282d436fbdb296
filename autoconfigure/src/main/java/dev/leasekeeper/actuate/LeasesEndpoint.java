package dev.leasekeeper.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseState;
import dev.leasekeeper.tls.CertificateListener;
import dev.leasekeeper.tls.CertificateSource;
import dev.leasekeeper.vault.StaticCredentialSource;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/leases}: every lease with its state, generation, masked lease id,
 * expiry, next renewal and last outcome; {@code /actuator/leases/{name}} for one; a write
 * operation to renew or rotate one now, closed unless
 * {@code management.endpoint.leases.access=unrestricted} (whoever reaches it could force
 * a rotation of every credential). Never a secret.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@Endpoint(id = "leases", defaultAccess = Access.READ_ONLY)
public class LeasesEndpoint {

	private final Map<String, LeaseRenewer> leases;

	private final LeaseActivity activity;

	/**
	 * Create a new endpoint.
	 * @param leases the leases by name, token first
	 * @param activity what each lease did last
	 */
	public LeasesEndpoint(Map<String, LeaseRenewer> leases, LeaseActivity activity) {
		this.leases = leases;
		this.activity = activity;
	}

	/**
	 * Describe every lease.
	 * @return the descriptors
	 */
	@ReadOperation
	public LeasesDescriptor leases() {
		return new LeasesDescriptor(this.leases.values().stream().map(this::describe).toList());
	}

	/**
	 * Describe one lease.
	 * @param name the lease's name
	 * @return the descriptor, or {@code null} (404) for an unknown lease
	 */
	@ReadOperation
	public @Nullable LeaseDescriptor lease(@Selector String name) {
		LeaseRenewer renewer = this.leases.get(name);
		return (renewer != null) ? describe(renewer) : null;
	}

	/**
	 * Renew or rotate one lease now.
	 * @param name the lease's name
	 * @param action {@code renew} or {@code rotate}
	 * @return the lease as it is when the action was asked for, or {@code null} (404) for
	 * an unknown lease
	 */
	@WriteOperation
	public @Nullable LeaseDescriptor act(@Selector String name, String action) {
		LeaseRenewer renewer = this.leases.get(name);
		if (renewer == null) {
			return null;
		}
		switch (action) {
			case "renew" -> renewer.renewNow();
			case "rotate" -> {
				LeaseState state = renewer.current().state();
				if (state == LeaseState.ROTATING || state == LeaseState.ACQUIRING) {
					throw new InvalidEndpointRequestException(
							"Lease '" + name + "' is already obtaining a new credential (" + state + ")",
							"a rotation is already in flight");
				}
				renewer.rotateNow();
			}
			default -> throw new InvalidEndpointRequestException("Unknown action '" + action + "': use renew or rotate",
					"unknown action");
		}
		return describe(renewer);
	}

	private LeaseDescriptor describe(LeaseRenewer renewer) {
		LeaseSnapshot lease = renewer.current();
		LeaseActivity.Entry entry = this.activity.of(renewer.getName());
		// a certificate: its serial and notAfter, never its key
		boolean certificate = CertificateSource.split(renewer.describe()) != null;
		Object serial = certificate ? lease.data().get(CertificateSource.SERIAL_NUMBER) : null;
		return new LeaseDescriptor(lease.name(),
				"auth/token".equals(renewer.describe()) ? "token"
						: certificate ? "certificate"
								: StaticCredentialSource.isStatic(renewer.describe()) ? "static" : "secret",
				renewer.describe(), lease.state().name(), lease.generation(), lease.maskedLeaseId(), lease.obtainedAt(),
				lease.expiry(), lease.nextActionAt(), entry.getLastOutcome(), entry.getLastOutcomeAt(),
				(entry.getRemainingAtLastRenewal() != null) ? entry.getRemainingAtLastRenewal().toMillis() / 1000.0
						: null,
				entry.getCeiling(), (serial != null) ? serial.toString() : null,
				certificate ? CertificateListener.notAfter(lease) : null);
	}

	/**
	 * Every lease.
	 *
	 * @param leases the leases
	 */
	public record LeasesDescriptor(List<LeaseDescriptor> leases) {
	}

	/**
	 * One lease, without secrets.
	 *
	 * @param name the lease's name
	 * @param kind {@code token}, {@code secret}, {@code static} (a database static role)
	 * or {@code certificate}
	 * @param path what it is obtained from
	 * @param state its state
	 * @param generation the generation held
	 * @param leaseId the lease id, masked
	 * @param obtainedAt when the grant held was requested
	 * @param expiresAt its effective expiry
	 * @param nextRenewalAt when it acts next
	 * @param lastOutcome the last outcome
	 * @param lastOutcomeAt when
	 * @param remainingAtLastRenewalSeconds the margin left at the last successful
	 * renewal, in seconds
	 * @param ceiling the hard expiry, once known
	 * @param serialNumber a certificate's serial number
	 * @param notAfter the end of a certificate's validity
	 */
	public record LeaseDescriptor(String name, String kind, String path, String state, int generation, String leaseId,
			@Nullable Instant obtainedAt, @Nullable Instant expiresAt, @Nullable Instant nextRenewalAt,
			@Nullable String lastOutcome, @Nullable Instant lastOutcomeAt,
			@Nullable Double remainingAtLastRenewalSeconds, @Nullable Instant ceiling, @Nullable String serialNumber,
			@Nullable Instant notAfter) {
	}

}
