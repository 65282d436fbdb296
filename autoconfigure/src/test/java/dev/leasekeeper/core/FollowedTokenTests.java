package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A token somebody else's session manager owns: Leasekeeper never renews it, but its
 * secret leases end no later than it and move to the next token after a login.
 */
class FollowedTokenTests {

	private final EngineFixture fixture = new EngineFixture();

	private final AtomicReference<Duration> timeLeft = new AtomicReference<>(Duration.ofMinutes(5));

	private final FollowedToken token = new FollowedToken("session", this.fixture.scheduler, RenewalPolicy.defaults(),
			this.timeLeft::get);

	private ManagedLease secret() {
		return this.fixture.started(this.fixture.secretLease("orders", "orders").followedToken(this.token));
	}

	@Test
	void aSecretLeaseEndsNoLaterThanTheTokenItWasObtainedUnder() {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(24));
		this.token.lookUp();
		ManagedLease lease = secret();
		Instant tokenExpiry = this.fixture.now().plus(Duration.ofMinutes(5));
		assertThat(lease.current().expiry()).isEqualTo(tokenExpiry);
		// the owner renews its token: the lease's expiry follows
		this.fixture.advance(Duration.ofMinutes(2));
		this.token.renewed(Duration.ofMinutes(5));
		this.fixture.scheduler.runDue();
		assertThat(lease.current().expiry()).isEqualTo(this.fixture.now().plus(Duration.ofMinutes(5)));
		assertThat(this.fixture.vault.count("renew-self")).isZero();
	}

	@Test
	void theFirstLoginHeardOfIsThePresentTokenNotANewOne() {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(24));
		ManagedLease lease = secret();
		this.token.loggedIn(Duration.ofMinutes(5));
		this.fixture.advance(Duration.ofMinutes(4));
		assertThat(lease.current().generation()).isEqualTo(1);
		assertThat(this.fixture.listener.events).noneMatch((event) -> event.startsWith("rotated"));
	}

	@Test
	void afterALoginTheLeaseMovesToTheNewTokenBeforeTheOldOneEndsWithCauseToken() {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(24));
		this.token.lookUp();
		ManagedLease lease = secret();
		Instant oldTokenExpiry = this.fixture.now().plus(Duration.ofMinutes(5));
		this.fixture.advance(Duration.ofMinutes(1));
		this.token.loggedIn(Duration.ofMinutes(5));
		this.fixture.scheduler.runDue();
		assertThat(lease.current().generation()).isEqualTo(1);
		// spread over the first half of the four minutes the old token has left
		this.fixture.advanceTo(this.fixture.now().plus(Duration.ofMinutes(2)).plusSeconds(1));
		assertThat(lease.current().generation()).isEqualTo(2);
		assertThat(this.fixture.listener.events).contains("rotated 1->2 TOKEN");
		assertThat(lease.current().expiry()).isAfter(oldTokenExpiry);
		assertThat(this.fixture.listener.events).noneMatch((event) -> event.startsWith("lost"));
	}

	@Test
	void aTokenTheOwnerCannotRenewFurtherMakesItLogInAtOnce() {
		this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(24));
		this.token.lookUp();
		secret();
		AtomicReference<Boolean> asked = new AtomicReference<>(false);
		this.token.expiring(() -> asked.set(true));
		this.fixture.scheduler.runDue();
		assertThat(asked.get()).isTrue();
	}

}
