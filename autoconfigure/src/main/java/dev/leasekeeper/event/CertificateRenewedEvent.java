package dev.leasekeeper.event;

import java.time.Instant;

import dev.leasekeeper.core.LeaseSnapshot;

/**
 * Published when a certificate declared under {@code leasekeeper.certificates} was
 * re-issued and its SSL bundle already serves the new one: {@link #getLeaseName()} is the
 * certificate's name, {@link #getLeaseId()} and {@link #getSerialNumber()} its serial
 * number. Never carries the private key.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public class CertificateRenewedEvent extends LeaseEvent {

	private final String serialNumber;

	private final Instant notAfter;

	/**
	 * Create a new event.
	 * @param source the certificate's renewer
	 * @param lease the certificate's lease with its new generation
	 * @param serialNumber the new certificate's serial number
	 * @param notAfter the end of its validity
	 */
	public CertificateRenewedEvent(Object source, LeaseSnapshot lease, String serialNumber, Instant notAfter) {
		super(source, lease);
		this.serialNumber = serialNumber;
		this.notAfter = notAfter;
	}

	/**
	 * Return the new certificate's serial number, colon-separated hex as Vault prints it.
	 * @return the serial number
	 */
	public String getSerialNumber() {
		return this.serialNumber;
	}

	/**
	 * Return the end of the new certificate's validity.
	 * @return its {@code notAfter}
	 */
	public Instant getNotAfter() {
		return this.notAfter;
	}

	@Override
	protected String details() {
		return ", serialNumber=" + this.serialNumber + ", notAfter=" + this.notAfter;
	}

}
