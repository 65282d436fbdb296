package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A credential the store replaces on its own schedule (a static role's password, a
 * fleet's published grant) is read again at each grant's {@code refreshAfter}: a read
 * that shows the credential held extends it like a renewal — no consumer is asked, no
 * generation added, no rotation published — and a read that shows another credential is a
 * rotation.
 */
class RefreshedCredentialTests {

	private final EngineFixture engine = new EngineFixture();

	private final Reads reads = new Reads(this.engine.scheduler);

	@Test
	void aReadOfTheCredentialHeldExtendsItWithoutARotation() {
		this.reads.answer("cred-1", "one");
		this.reads.answer("cred-1", "one");
		this.reads.answer("cred-2", "two");
		ManagedLease lease = this.engine.started(ManagedLease.builder("shared", this.reads, this.engine.scheduler)
			.listener(this.engine.listener)
			.random(new SplittableRandom(7)));
		assertThat(lease.current().generation()).isEqualTo(1);
		Instant firstExpiry = lease.current().expiry();
		this.engine.advance(Duration.ofSeconds(21));
		assertThat(this.reads.count).isEqualTo(2);
		assertThat(lease.current().generation()).isEqualTo(1);
		assertThat(lease.current().expiry()).isAfter(firstExpiry);
		assertThat(lease.current().state()).isEqualTo(LeaseState.ACTIVE);
		assertThat(this.engine.listener.accepted).containsExactly("cred-1");
		assertThat(this.engine.listener.events).containsExactly("acquired 1", "renewed 1");
		this.engine.advance(Duration.ofSeconds(21));
		assertThat(this.reads.count).isEqualTo(3);
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(lease.current().data()).containsEntry("password", "two");
		assertThat(this.engine.listener.accepted).containsExactly("cred-1", "cred-2");
		assertThat(this.engine.listener.events).containsExactly("acquired 1", "renewed 1",
				"rotated 1->2 STATIC_ROTATION");
	}

	@Test
	void theSameLeaseWithOtherDataIsARotation() {
		this.reads.answer("cred-1", "one");
		this.reads.answer("cred-1", "changed");
		ManagedLease lease = this.engine.started(ManagedLease.builder("shared", this.reads, this.engine.scheduler)
			.listener(this.engine.listener)
			.random(new SplittableRandom(7)));
		this.engine.advance(Duration.ofSeconds(21));
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(this.engine.listener.accepted).containsExactly("cred-1", "cred-1");
	}

	/** Reads answered in order, each valid 60 s and read again after 20 s. */
	private static final class Reads implements LeaseSource {

		private final LeaseScheduler scheduler;

		private final Deque<Grant> answers = new ArrayDeque<>();

		int count;

		Reads(LeaseScheduler scheduler) {
			this.scheduler = scheduler;
		}

		void answer(String leaseId, String password) {
			this.answers.add(new Grant(leaseId, Duration.ofSeconds(60), false, Map.of("password", password), List.of(),
					Instant.EPOCH, Duration.ofSeconds(20)));
		}

		@Override
		public Grant acquire() throws LeaseSourceException {
			this.count++;
			Grant next = this.answers.poll();
			if (next == null) {
				throw LeaseSourceException.transientFailure("no-answer", "no more answers", null);
			}
			return new Grant(next.leaseId(), next.ttl(), false, next.data(), List.of(), this.scheduler.now(),
					next.refreshAfter());
		}

		@Override
		public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
			throw LeaseSourceException.permanent("not-renewable", "read again, never renewed");
		}

		@Override
		public void revoke(Grant current) {
		}

		@Override
		public boolean revokes() {
			return false;
		}

	}

}
