package dev.leasekeeper.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StopTests {

	private static final Duration HOUR = Duration.ofHours(1);

	private final EngineFixture fixture = new EngineFixture();

	@Test
	void stopRevokesTheGrantHeldAndSchedulesNothingMore() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders"));
		String leaseId = lease.current().leaseId();
		var stopped = lease.stop(true);
		this.fixture.scheduler.runDue();
		assertThat(stopped).isDone();
		assertThat(this.fixture.vault.isAlive(leaseId)).isFalse();
		assertThat(lease.current().state()).isEqualTo(LeaseState.REVOKED);
		assertThat(this.fixture.listener.events).contains("stopped 1 true");
		this.fixture.advance(Duration.ofHours(5));
		assertThat(this.fixture.vault.count("renew")).isZero();
		assertThat(this.fixture.scheduler.pendingTasks()).isZero();
	}

	@Test
	void stopWithoutRevocationKeepsTheLeaseInVault() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders"));
		String leaseId = lease.current().leaseId();
		lease.stop(false);
		this.fixture.scheduler.runDue();
		assertThat(this.fixture.vault.isAlive(leaseId)).isTrue();
		assertThat(this.fixture.vault.count("revoke")).isZero();
	}

	@Test
	void aGrantThatArrivesAfterStopIsRevoked() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		this.fixture.scheduler.setCallLatency(() -> Duration.ofSeconds(3));
		ManagedLease lease = this.fixture.secretLease("orders", "orders").build();
		lease.start();
		this.fixture.advance(Duration.ofSeconds(1));
		lease.stop(true);
		this.fixture.advance(Duration.ofSeconds(10));
		String obtained = this.fixture.vault.journal()
			.stream()
			.filter((call) -> call.operation().equals("revoke"))
			.findFirst()
			.orElseThrow()
			.target();
		assertThat(this.fixture.vault.isAlive(obtained)).isFalse();
		assertThat(lease.current().state()).isEqualTo(LeaseState.REVOKED);
	}

	@Test
	void aFailedRevocationIsLoggedNeverThrown() {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		ManagedLease lease = this.fixture.started(this.fixture.secretLease("orders", "orders"));
		this.fixture.vault.down();
		var stopped = lease.stop(true);
		this.fixture.scheduler.runDue();
		assertThat(stopped).isCompleted();
		assertThat(this.fixture.listener.events).contains("stopped 1 false");
	}

}
