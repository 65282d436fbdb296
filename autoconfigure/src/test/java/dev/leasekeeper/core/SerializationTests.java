package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviour (g): one operation in flight per lease, and a late answer never overwrites a
 * newer grant.
 */
class SerializationTests {

	private static final Duration HOUR = Duration.ofHours(1);

	private final EngineFixture fixture = new EngineFixture();

	private final RenewalPolicy noSpread = RenewalPolicy.builder().firstRenewalSpread(0).build();

	@Test
	void commandsDuringARenewalInFlightWaitForItInsteadOfStartingAnother() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		this.fixture.scheduler.setCallLatency(() -> Duration.ofSeconds(5));
		lease.renewNow();
		this.fixture.advance(Duration.ofMillis(10));
		assertThat(lease.current().state()).isEqualTo(LeaseState.RENEWING);
		for (int i = 0; i < 10; i++) {
			lease.renewNow();
			lease.rotateNow();
			this.fixture.advance(Duration.ofMillis(400));
			assertThat(this.fixture.vault.count("renew") + this.fixture.vault.count("acquire")).isEqualTo(2);
		}
		this.fixture.advance(Duration.ofSeconds(2));
		// the rotation asked for during the renewal runs after it, once
		assertThat(this.fixture.vault.count("renew")).isEqualTo(1);
		this.fixture.advance(Duration.ofSeconds(20));
		assertThat(this.fixture.vault.count("acquire")).isEqualTo(2);
		assertThat(lease.current().generation()).isEqualTo(2);
	}

	@Test
	void aSlowAnswerThatArrivesAfterARotationNeverOverwritesTheNewerGrant() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread));
		String first = lease.current().leaseId();
		Deque<Duration> latencies = new ArrayDeque<>();
		latencies.add(Duration.ofSeconds(60));
		this.fixture.scheduler.setCallLatency(() -> latencies.isEmpty() ? Duration.ZERO : latencies.poll());
		Instant renewal = lease.current().nextActionAt();
		this.fixture.advanceTo(renewal);
		// the renewal's answer (a success) is on its way for 60 s; the attempt is
		// abandoned after 10 s
		this.fixture.advanceTo(renewal.plusSeconds(10));
		assertThat(lease.current().state()).isEqualTo(LeaseState.RETRYING);
		this.fixture.vault.revokeOutOfBand(first);
		this.fixture.advanceTo(renewal.plusSeconds(15));
		LeaseSnapshot second = lease.current();
		assertThat(second.generation()).isEqualTo(2);
		assertThat(second.leaseId()).isNotEqualTo(first);
		this.fixture.advanceTo(renewal.plusSeconds(61));
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(lease.current().leaseId()).isEqualTo(second.leaseId());
		assertThat(lease.current().expiry()).isEqualTo(second.expiry());
		assertThat(lease.current().nextActionAt()).isEqualTo(second.nextActionAt());
		assertThat(this.fixture.listener.renewals).isEmpty();
	}

	@Test
	void aGrantThatArrivesAfterItsAttemptWasAbandonedAnswersTheAcquisitionWaitingForIt() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		Deque<Duration> latencies = new ArrayDeque<>();
		latencies.add(Duration.ofSeconds(30));
		this.fixture.scheduler.setCallLatency(() -> latencies.isEmpty() ? Duration.ZERO : latencies.poll());
		ManagedLease lease = this.fixture.secretLease("orders", "orders").policy(this.noSpread).build();
		lease.start();
		this.fixture.advance(Duration.ofSeconds(12));
		// the first acquisition was abandoned after 10 s; the retry waits for it rather
		// than opening a second connection
		assertThat(lease.current().generation()).isZero();
		assertThat(this.fixture.vault.count("acquire")).isEqualTo(1);
		this.fixture.advance(Duration.ofSeconds(19));
		LeaseSnapshot first = lease.current();
		assertThat(first.generation()).isEqualTo(1);
		assertThat(this.fixture.vault.count("acquire")).isEqualTo(1);
		assertThat(this.fixture.vault.count("revoke")).isZero();
		assertThat(this.fixture.vault.isAlive(first.leaseId())).isTrue();
		// counted from when the request was sent, not from when its answer arrived
		assertThat(first.expiry()).isBeforeOrEqualTo(EngineFixture.START.plus(HOUR));
	}

	@Test
	void aGrantThatArrivesAfterItsLeaseWasStoppedIsRevoked() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		this.fixture.scheduler.setCallLatency(() -> Duration.ofSeconds(30));
		ManagedLease lease = this.fixture.secretLease("orders", "orders").policy(this.noSpread).build();
		lease.start();
		this.fixture.advance(Duration.ofSeconds(5));
		lease.stop(true);
		this.fixture.advance(Duration.ofSeconds(60));
		assertThat(this.fixture.vault.count("acquire")).isEqualTo(1);
		String late = this.fixture.vault.journal()
			.stream()
			.filter((call) -> call.operation().equals("revoke"))
			.findFirst()
			.orElseThrow()
			.target();
		assertThat(this.fixture.vault.isAlive(late)).isFalse();
		assertThat(lease.current().state()).isEqualTo(LeaseState.REVOKED);
	}

	@Test
	void aListenerThatThrowsDoesNotStopTheLease() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture
			.started(this.fixture.secretLease("orders", "orders").policy(this.noSpread).listener(new LeaseListener() {
				@Override
				public void onRenewed(LeaseRenewal renewal) {
					throw new IllegalStateException("listener bug");
				}
			}));
		this.fixture.advance(Duration.ofHours(3));
		assertThat(this.fixture.listener.renewals).hasSizeGreaterThanOrEqualTo(4);
		assertThat(lease.current().state()).isEqualTo(LeaseState.ACTIVE);
	}

	@Test
	void anUnexpectedExceptionFromTheSourceIsRetriedAsTransientKeepingTheGrant() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		LeaseSource broken = new LeaseSource() {
			private final LeaseSource delegate = SerializationTests.this.fixture.vault.secrets("orders", () -> null);

			private int renewals;

			@Override
			public Grant acquire() throws LeaseSourceException {
				return this.delegate.acquire();
			}

			@Override
			public Grant renew(Grant current, Duration increment) throws LeaseSourceException {
				if (this.renewals++ == 0) {
					throw new IllegalArgumentException("malformed answer: lease_duration missing");
				}
				return this.delegate.renew(current, increment);
			}

			@Override
			public void revoke(Grant current) throws LeaseSourceException {
				this.delegate.revoke(current);
			}
		};
		ManagedLease lease = this.fixture.started(ManagedLease.builder("orders", broken, this.fixture.scheduler)
			.policy(this.noSpread)
			.listener(this.fixture.listener));
		this.fixture.advanceTo(lease.current().nextActionAt());
		assertThat(lease.current().state()).isEqualTo(LeaseState.RETRYING);
		assertThat(lease.getLastErrorClass()).isEqualTo("unexpected-IllegalArgumentException");
		assertThat(lease.current().data()).isNotEmpty();
		this.fixture.advance(Duration.ofSeconds(2));
		assertThat(lease.current().state()).isEqualTo(LeaseState.ACTIVE);
		assertThat(lease.current().generation()).isEqualTo(1);
	}

}
