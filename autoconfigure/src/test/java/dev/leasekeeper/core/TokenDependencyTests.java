package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviours (e, UNAUTHORIZED) and (h): secret leases die with the token they were
 * obtained under, so they are obtained again under its replacement before it expires.
 */
class TokenDependencyTests {

	private static final Duration HOUR = Duration.ofHours(1);

	private final EngineFixture fixture = new EngineFixture();

	private final RecordingListener tokenEvents = new RecordingListener();

	private final RenewalPolicy noSpread = RenewalPolicy.builder().firstRenewalSpread(0).build();

	private ManagedLease token;

	private final List<ManagedLease> secrets = new ArrayList<>();

	private void start(Duration tokenTtl, Duration tokenMaxTtl, int secretCount) {
		this.fixture.vault.role("orders", HOUR, Duration.ofHours(768));
		this.token = ManagedLease
			.builder("token", this.fixture.vault.tokens(tokenTtl, tokenMaxTtl), this.fixture.scheduler)
			.policy(this.noSpread)
			.listener(this.tokenEvents)
			.random(new SplittableRandom(7))
			.build();
		for (int i = 0; i < secretCount; i++) {
			this.secrets.add(ManagedLease
				.builder("secret-" + i, this.fixture.vault.secrets("orders", this::currentToken),
						this.fixture.scheduler)
				.token(this.token)
				.policy(this.noSpread)
				.listener(this.fixture.listener)
				.random(new SplittableRandom(100 + i))
				.build());
		}
		// secret leases started first wait for their token
		this.secrets.forEach(ManagedLease::start);
		this.token.start();
		this.fixture.scheduler.runDue();
	}

	private String currentToken() {
		return (String) this.token.current().data().get("token");
	}

	@Test
	void underAShortLivedTokenALaterGenerationStillRotatesInItsOwnRenewalSlot() {
		// the secret's role: 1 h TTL, 2.5 h max TTL (learnt at generation 1's capped
		// answer); its token lives 20 min, so every planned action falls after the
		// token's validity and is planned again each time the token is renewed
		this.fixture.vault.role("orders", HOUR, Duration.ofMinutes(150));
		this.token = ManagedLease
			.builder("token", this.fixture.vault.tokens(Duration.ofMinutes(20), Duration.ofHours(768)),
					this.fixture.scheduler)
			.policy(this.noSpread)
			.random(new SplittableRandom(7))
			.build();
		List<Duration> rotatedAfterLastGrant = new ArrayList<>();
		ManagedLease secret = ManagedLease
			.builder("secret", this.fixture.vault.secrets("orders", this::currentToken), this.fixture.scheduler)
			.token(this.token)
			.policy(this.noSpread)
			.listener(new LeaseListener() {

				private Instant lastGrant;

				@Override
				public void onAcquired(LeaseSnapshot lease) {
					this.lastGrant = lease.obtainedAt();
				}

				@Override
				public void onRenewed(LeaseRenewal renewal) {
					this.lastGrant = renewal.lease().obtainedAt();
				}

				@Override
				public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
					if (previousGeneration > 1) {
						rotatedAfterLastGrant.add(Duration.between(this.lastGrant, lease.obtainedAt()));
					}
					this.lastGrant = lease.obtainedAt();
				}

			})
			.random(new SplittableRandom(11))
			.build();
		secret.start();
		this.token.start();
		this.fixture.advance(Duration.ofHours(7));
		// from generation 2 on the ceiling is known: each rotates where its next renewal
		// would have been (0.67 of the last grant's hour, less at most the 1 % jitter),
		// keeping a full renewal's outage budget; not at a draw between a token renewal
		// and that slot
		assertThat(rotatedAfterLastGrant).hasSizeGreaterThanOrEqualTo(2)
			.allSatisfy((age) -> assertThat(age).isGreaterThanOrEqualTo(Duration.ofSeconds(3600 * 66 / 100 - 1)));
	}

	@Test
	void secretLeasesAreObtainedOnceTheirTokenHoldsAGrant() {
		start(HOUR, Duration.ofHours(4), 3);
		assertThat(this.token.current().generation()).isEqualTo(1);
		assertThat(this.secrets).allSatisfy((secret) -> {
			assertThat(secret.current().generation()).isEqualTo(1);
			assertThat(this.fixture.vault.isAlive(secret.current().leaseId())).isTrue();
		});
		assertThat(this.fixture.vault.journal().get(0).operation()).isEqualTo("login");
	}

	@Test
	void aSecretLeaseExpiresNoLaterThanItsToken() {
		start(Duration.ofMinutes(20), Duration.ofHours(4), 1);
		ManagedLease secret = this.secrets.get(0);
		assertThat(secret.current().expiry()).isEqualTo(this.token.current().expiry());
		this.fixture.advanceTo(this.token.current().nextActionAt());
		assertThat(secret.current().expiry()).isEqualTo(this.token.current().expiry());
	}

	@Test
	void whenTheTokenReachesItsCeilingEverySecretLeaseIsRotatedBeforeTheOldTokenExpires() {
		start(HOUR, Duration.ofHours(2), 5);
		String oldToken = this.token.current().leaseId();
		List<String> oldSecrets = this.secrets.stream().map((secret) -> secret.current().leaseId()).toList();
		while (this.token.current().generation() == 1) {
			this.fixture.advanceTo(this.token.current().nextActionAt());
		}
		// the old token's hard expiry, as its ceiling revealed it
		Instant oldTokenExpiry = this.tokenEvents.ceilings.get(0);
		assertThat(this.tokenEvents.events).containsSubsequence("ceiling 1", "rotated 1->2 CEILING");
		assertThat(this.fixture.now()).isBefore(oldTokenExpiry);
		// the secrets move at instants spread over the first half of the time the old
		// token has left
		Instant rotated = this.fixture.now();
		this.fixture.advanceTo(rotated.plus(Duration.between(rotated, oldTokenExpiry).dividedBy(2)).plusSeconds(1));
		assertThat(this.fixture.vault.journal()
			.stream()
			.filter((call) -> call.operation().equals("acquire") && call.at().isAfter(rotated))
			.map(InMemoryVault.Call::at)
			.distinct()).hasSize(5);
		assertThat(this.secrets).allSatisfy((secret) -> {
			assertThat(secret.current().generation()).isEqualTo(2);
			assertThat(this.fixture.vault.isAlive(secret.current().leaseId())).isTrue();
		});
		assertThat(this.fixture.listener.count("rotated 1->2 TOKEN")).isEqualTo(5);
		// the old token is revoked only after every secret lease moved on: revoking it
		// revokes them
		List<InMemoryVault.Call> journal = this.fixture.vault.journal();
		int tokenRevocation = indexOf(journal, "revoke-self", oldToken);
		for (String oldSecret : oldSecrets) {
			assertThat(indexOf(journal, "revoke", oldSecret)).isLessThan(tokenRevocation);
		}
		assertThat(this.fixture.vault.isAlive(oldToken)).isFalse();
	}

	@Test
	void aThousandSecretLeasesMoveToANewTokenSpreadOutNotAllAtOnce() {
		start(HOUR, Duration.ofHours(2), 1000);
		while (this.token.current().generation() == 1) {
			this.fixture.advanceTo(this.token.current().nextActionAt());
		}
		// the old token's hard expiry, as its ceiling revealed it
		Instant oldTokenExpiry = this.tokenEvents.ceilings.get(0);
		Instant rotated = this.fixture.now();
		Duration period = Duration.between(rotated, oldTokenExpiry).dividedBy(2);
		this.fixture.advanceTo(rotated.plus(period).plusSeconds(1));
		assertThat(this.secrets).allSatisfy((secret) -> assertThat(secret.current().generation()).isEqualTo(2));
		java.util.Map<Long, Long> perMinute = this.fixture.vault.journal()
			.stream()
			.filter((call) -> call.operation().equals("acquire") && !call.at().isBefore(rotated))
			.collect(java.util.stream.Collectors.groupingBy((call) -> Duration.between(rotated, call.at()).toMinutes(),
					java.util.stream.Collectors.counting()));
		double minutes = Math.max(1, period.toSeconds() / 60.0);
		double mean = 1000 / minutes;
		long peak = perMinute.values().stream().mapToLong(Long::longValue).max().orElseThrow();
		assertThat(peak).as("peak minute of %s (mean %.0f over %.0f minutes)", perMinute, mean, minutes)
			.isLessThanOrEqualTo((long) (3 * mean));
		assertThat(this.fixture.listener.count("lost")).isZero();
	}

	@Test
	void whenTheTokenIsLostItsSecretLeasesAreLostAndObtainedAgainUnderTheNewToken() {
		// the token renews (at 20 minutes) before its secret leases (at 40): it notices
		// first
		start(Duration.ofMinutes(30), Duration.ofHours(24), 2);
		this.fixture.vault.revokeOutOfBand(this.token.current().leaseId());
		this.fixture.advanceTo(this.token.current().nextActionAt());
		assertThat(this.tokenEvents.events).containsSubsequence("lost 1 UNAUTHORIZED", "rotated 1->2 LOST");
		assertThat(this.fixture.listener.count("lost 1 EXPIRED")).isEqualTo(2);
		this.fixture.scheduler.runDue();
		assertThat(this.secrets).allSatisfy((secret) -> {
			assertThat(secret.current().generation()).isEqualTo(2);
			assertThat(secret.current().state()).isEqualTo(LeaseState.ACTIVE);
			assertThat(this.fixture.vault.isAlive(secret.current().leaseId())).isTrue();
		});
	}

	@Test
	void anUnauthorizedSecretRenewalMakesTheTokenVerifyItselfAndALostTokenIsLoggedInAgainBeforeTheSecret() {
		start(HOUR, Duration.ofHours(24), 1);
		ManagedLease secret = this.secrets.get(0);
		// the token dies, and a secret renewal is the first call to notice
		this.fixture.vault.revokeOutOfBand(this.token.current().leaseId());
		secret.renewNow();
		this.fixture.advance(Duration.ofSeconds(5));
		assertThat(this.token.current().generation()).isEqualTo(2);
		assertThat(secret.current().generation()).isEqualTo(2);
		List<String> operations = this.fixture.vault.journal().stream().map(InMemoryVault.Call::operation).toList();
		assertThat(operations).containsSubsequence("renew", "lookup-self", "login", "acquire");
		assertThat(operations.subList(operations.indexOf("renew"), operations.size())).containsOnlyOnce("renew");
		// Vault revoked the secret with its token: it is reported lost, then obtained
		// anew
		assertThat(this.fixture.listener.events).containsSubsequence("failed 1 UNAUTHORIZED", "lost 1 EXPIRED",
				"rotated 1->2 LOST");
		assertThat(this.fixture.vault.isAlive(secret.current().leaseId())).isTrue();
	}

	private static int indexOf(List<InMemoryVault.Call> journal, String operation, String target) {
		for (int i = 0; i < journal.size(); i++) {
			if (journal.get(i).operation().equals(operation) && journal.get(i).target().equals(target)) {
				return i;
			}
		}
		throw new AssertionError(operation + " " + target + " not in the journal");
	}

}
