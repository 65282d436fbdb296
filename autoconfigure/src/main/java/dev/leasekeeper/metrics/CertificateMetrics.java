package dev.leasekeeper.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.tls.CertificateListener;

/**
 * The meters of the certificates declared under {@code leasekeeper.certificates}, tagged
 * {@code certificate}: {@value #REMAINING} (seconds to the served certificate's
 * {@code notAfter}) and {@value #ROTATIONS} (re-issues). Each certificate also has the
 * meters of a lease, tagged {@code lease}.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class CertificateMetrics implements MeterBinder {

	/** Gauge of the seconds to the {@code notAfter} of the certificate held. */
	public static final String REMAINING = "leasekeeper.certificate.remaining";

	/** Counter of re-issued certificates. */
	public static final String ROTATIONS = "leasekeeper.certificate.rotations";

	private final Map<String, Supplier<LeaseSnapshot>> certificates;

	private final ToLongFunction<String> reissues;

	private final Supplier<Instant> clock;

	/**
	 * Create the meters.
	 * @param certificates each certificate's lease, by name
	 * @param reissues how many times a certificate, by name, was re-issued
	 * @param clock the present
	 */
	public CertificateMetrics(Map<String, Supplier<LeaseSnapshot>> certificates, ToLongFunction<String> reissues,
			Supplier<Instant> clock) {
		this.certificates = Map.copyOf(certificates);
		this.reissues = reissues;
		this.clock = clock;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.certificates.forEach((name, lease) -> {
			Gauge.builder(REMAINING, lease, (current) -> remaining(current.get()))
				.description("Seconds to the notAfter of the certificate served")
				.baseUnit("seconds")
				.tags("certificate", name)
				.register(registry);
			FunctionCounter.builder(ROTATIONS, name, this.reissues::applyAsLong)
				.description("Certificates re-issued")
				.baseUnit("certificates")
				.tags("certificate", name)
				.register(registry);
		});
	}

	private double remaining(LeaseSnapshot lease) {
		Instant notAfter = CertificateListener.notAfter(lease);
		if (notAfter == null || !lease.state().holdsGrant()) {
			return Double.NaN;
		}
		return Math.max(0, Duration.between(this.clock.get(), notAfter).toMillis() / 1000.0);
	}

}
