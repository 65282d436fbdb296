package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A token given in configuration ({@code leasekeeper.vault.authentication: token}): its
 * "log-in" is a look-up of that same token, so it cannot be replaced. At its max TTL it
 * is kept to its end and then lost, once; it is never rotated into itself (which made
 * every secret lease obtained under it rotate too), and its last seconds are not a loop
 * of look-ups, each giving it back for a little less time.
 */
class ConfiguredTokenTests {

	private static final Duration HOUR = Duration.ofHours(1);

	private final EngineFixture fixture = new EngineFixture();

	private final RecordingListener tokenEvents = new RecordingListener();

	private LeaseSource tokens;

	private Grant created;

	private Instant hardExpiry;

	@BeforeEach
	void tokenCreatedTenHoursAgo() throws LeaseSourceException {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		// created by an operator with a 1 h TTL and a 24 h max TTL, renewed since
		this.tokens = this.fixture.vault.tokens(HOUR, Duration.ofHours(24));
		this.created = this.tokens.acquire();
		for (int i = 0; i < 15; i++) {
			this.fixture.advance(Duration.ofMinutes(40));
			this.tokens.renew(this.created, null);
		}
		this.hardExpiry = EngineFixture.START.plus(Duration.ofHours(24));
	}

	@Test
	void atItsMaxTtlItIsKeptToItsEndThenLostOnceAndNothingObtainedUnderItRotates() {
		ManagedLease token = ManagedLease.builder("vault-token", configured(), this.fixture.scheduler)
			.listener(this.tokenEvents)
			.random(new SplittableRandom(7))
			.build();
		ManagedLease secret = ManagedLease
			.builder("orders-db",
					this.fixture.vault.secrets("orders", () -> (String) token.current().data().get("token")),
					this.fixture.scheduler)
			.token(token)
			.listener(this.fixture.listener)
			.random(new SplittableRandom(8))
			.build();
		secret.start();
		token.start();
		this.fixture.scheduler.runDue();
		// past the token's end, by six hours (this advance never ended before: the last
		// second before the end was an endless series of look-ups, each making a new
		// generation of the token and of every secret lease)
		this.fixture.advanceTo(this.hardExpiry.plus(Duration.ofHours(6)));
		assertThat(this.tokenEvents.events).containsSubsequence("ceiling 1", "lost 1 EXPIRED")
			.noneMatch((event) -> event.startsWith("rotated"))
			.filteredOn((event) -> event.startsWith("lost"))
			.hasSize(1);
		// the secret lease dies with its token, and was never rotated for a token that
		// did not change
		assertThat(this.fixture.listener.events).filteredOn((event) -> !event.startsWith("renewed"))
			.containsExactly("acquired 1", "lost 1 EXPIRED");
		// around its end: one look-up when it was lost (it gave the token back), the next
		// ones once it has ended, backing off from a second (7 in that minute, where
		// there were millions)
		List<InMemoryVault.Call> lastMinute = this.fixture.vault.journal()
			.stream()
			.filter((call) -> call.at().isAfter(this.hardExpiry.minusSeconds(60))
					&& call.at().isBefore(this.hardExpiry.plusSeconds(60)))
			.toList();
		assertThat(lastMinute).hasSizeLessThanOrEqualTo(8);
		assertThat(token.current().state()).isEqualTo(LeaseState.LOST);
		assertThat(this.fixture.vault.journal()).filteredOn((call) -> call.operation().equals("acquire")).hasSize(1);
	}

	@Test
	void aRotationAskedForBeforeItsEndKeepsTheTokenAndRenewsItOn() {
		ManagedLease token = this.fixture
			.started(ManagedLease.builder("vault-token", configured(), this.fixture.scheduler)
				.listener(this.tokenEvents)
				.random(new SplittableRandom(7)));
		token.rotateNow();
		this.fixture.scheduler.runDue();
		this.fixture.advance(Duration.ofHours(3));
		assertThat(this.tokenEvents.events).noneMatch((event) -> event.startsWith("rotated"))
			.noneMatch((event) -> event.startsWith("lost"))
			.contains("renewed 1");
		assertThat(token.current().generation()).isEqualTo(1);
		assertThat(token.current().expiry()).isAfter(this.fixture.now());
	}

	/** What a configured token's source does: its "log-in" looks the token up. */
	private LeaseSource configured() {
		return new LeaseSource() {

			@Override
			public Grant acquire() throws LeaseSourceException {
				Grant looked = ConfiguredTokenTests.this.tokens.lookup(ConfiguredTokenTests.this.created);
				return new Grant(ConfiguredTokenTests.this.created.leaseId(), looked.ttl(), true,
						ConfiguredTokenTests.this.created.data(), List.of(), looked.obtainedAt());
			}

			@Override
			public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
				return ConfiguredTokenTests.this.tokens.renew(current, increment);
			}

			@Override
			public Grant lookup(Grant current) throws LeaseSourceException {
				return ConfiguredTokenTests.this.tokens.lookup(current);
			}

			@Override
			public void revoke(Grant current) {
			}

			@Override
			public boolean revokes() {
				return false;
			}

		};
	}

}
