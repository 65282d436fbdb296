package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Records every notification, in order, as a line such as {@code renewed 1} or
 * {@code lost 2 EXPIRED}.
 */
class RecordingListener implements LeaseListener {

	final List<String> events = new ArrayList<>();

	final List<LeaseRenewal> renewals = new ArrayList<>();

	final List<Instant> ceilings = new ArrayList<>();

	final List<String> accepted = new ArrayList<>();

	final List<String> released = new ArrayList<>();

	@Nullable RuntimeException rejectNext;

	int rejections;

	@Override
	public void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) {
		if (this.rejectNext != null && previous != null) {
			RuntimeException rejection = this.rejectNext;
			this.rejectNext = (--this.rejections > 0) ? rejection : null;
			throw rejection;
		}
		this.accepted.add(candidate.leaseId());
	}

	@Override
	public void release(LeaseSnapshot previous) {
		this.released.add(previous.leaseId());
	}

	@Override
	public void onAcquired(LeaseSnapshot lease) {
		this.events.add("acquired " + lease.generation());
	}

	@Override
	public void onRenewed(LeaseRenewal renewal) {
		this.renewals.add(renewal);
		this.events.add("renewed " + renewal.lease().generation());
	}

	@Override
	public void onFailure(LeaseSnapshot lease, LeaseSourceException failure, int attempt,
			@Nullable Instant nextAttemptAt) {
		this.events.add("failed " + lease.generation() + " " + failure.getKind());
	}

	@Override
	public void onCeilingReached(LeaseSnapshot lease, Instant hardExpiry, CeilingAction action) {
		this.ceilings.add(hardExpiry);
		this.events.add("ceiling " + lease.generation());
	}

	@Override
	public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
		this.events.add("rotated " + previousGeneration + "->" + lease.generation() + " " + cause);
	}

	@Override
	public void onReplacementRejected(LeaseSnapshot lease, Exception failure) {
		this.events.add("rejected " + lease.generation());
	}

	@Override
	public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
		this.events.add("lost " + lease.generation() + " " + reason);
	}

	@Override
	public void onTimerLate(LeaseSnapshot lease, Duration lateness) {
		this.events.add("late " + lease.generation());
	}

	@Override
	public void onStopped(LeaseSnapshot lease, boolean revoked) {
		this.events.add("stopped " + lease.generation() + " " + revoked);
	}

	long count(String prefix) {
		return this.events.stream().filter((event) -> event.startsWith(prefix)).count();
	}

}
