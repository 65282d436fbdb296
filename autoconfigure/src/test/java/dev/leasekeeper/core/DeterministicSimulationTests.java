package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Deterministic simulation: for each seed, a token and two secret leases obtained under
 * it run for seven simulated days against the in-memory Vault while a fault schedule
 * drawn from the seed injects outages, latency spikes, 429 bursts, out-of-band
 * revocations, a lowered max TTL and scheduler stalls. After every step the invariants
 * are checked; a failing seed names itself and the command that replays it alone.
 * {@code -Dleasekeeper.simulation.seeds=N} runs more seeds.
 */
class DeterministicSimulationTests {

	private static final int SEEDS = Integer.getInteger("leasekeeper.simulation.seeds", 1000);

	private static final Duration DAYS = Duration.ofDays(7);

	private static final Duration STEP = Duration.ofSeconds(30);

	@Test
	void invariantsHoldOverManySeededRuns() {
		Long replay = Long.getLong("leasekeeper.simulation.seed");
		long first = (replay != null) ? replay : 1;
		long last = (replay != null) ? replay : SEEDS;
		long steps = 0;
		for (long seed = first; seed <= last; seed++) {
			try {
				steps += new Simulation(seed).run();
			}
			catch (AssertionError ex) {
				fail("seed " + seed + " broke an invariant; replay it with ./mvnw -pl autoconfigure -am test"
						+ " -Dtest=DeterministicSimulationTests -Dsurefire.failIfNoSpecifiedTests=false"
						+ " -Dleasekeeper.simulation.seed=" + seed + "\n" + ex.getMessage(), ex);
			}
		}
		System.out.println("Simulation: " + (last - first + 1) + " seeds x " + DAYS.toDays() + " simulated days, "
				+ steps + " checked steps");
	}

	private static final class Simulation {

		private final long seed;

		private final SplittableRandom random;

		private final EngineFixture fixture = new EngineFixture();

		private final boolean outagesOnly;

		private final List<ManagedLease> leases = new ArrayList<>();

		private final Map<String, Integer> generations = new HashMap<>();

		private final Map<String, Integer> losses = new HashMap<>();

		private final Map<String, Instant> callEnds = new HashMap<>();

		private final List<Fault> faults = new ArrayList<>();

		private final List<Ceiling> ceilings = new ArrayList<>();

		private @Nullable String callingLease;

		private Duration latency = Duration.ZERO;

		private boolean outOfBand;

		Simulation(long seed) {
			this.seed = seed;
			this.random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L);
			this.outagesOnly = seed % 4 == 0;
		}

		long run() {
			// the promise of (iv) is for full windows: the outage-only seeds have no
			// ceiling within the week, where a
			// capped last window leaves a smaller margin
			Duration ceiling = this.outagesOnly ? Duration.ofHours(768) : Duration.ofHours(24);
			this.fixture.vault.role("orders", Duration.ofHours(1), ceiling);
			this.fixture.vault.role("reports", Duration.ofMinutes(20),
					this.outagesOnly ? ceiling : Duration.ofHours(3));
			RenewalPolicy policy = RenewalPolicy.builder().firstRenewalSpread(this.random.nextDouble()).build();
			ManagedLease token = lease(ManagedLease.builder("token",
					observed("token",
							this.fixture.vault.tokens(Duration.ofHours(2),
									this.outagesOnly ? Duration.ofHours(768) : Duration.ofHours(30))),
					this.fixture.scheduler)
				.policy(policy));
			for (String role : List.of("orders", "reports")) {
				lease(ManagedLease
					.builder(role,
							observed(role,
									this.fixture.vault.secrets(role,
											() -> (String) token.current().data().get("token"))),
							this.fixture.scheduler)
					.policy(policy)
					.token(token));
			}
			this.fixture.scheduler.setCallLatency(this::latencyOfCall);
			drawFaults();
			this.leases.forEach(ManagedLease::start);
			long steps = 0;
			Instant end = EngineFixture.START.plus(DAYS);
			while (this.fixture.now().isBefore(end)) {
				applyFaults();
				this.fixture.advance(STEP);
				check();
				steps++;
			}
			this.fixture.vault.up();
			this.latency = Duration.ZERO;
			this.fixture.advance(Duration.ofMinutes(10));
			shutDown();
			return steps;
		}

		private ManagedLease lease(ManagedLease.Builder builder) {
			ManagedLease lease = builder.random(new SplittableRandom(this.random.nextLong()))
				.listener(new LeaseListener() {
					@Override
					public void onCeilingReached(LeaseSnapshot snapshot, Instant hardExpiry, CeilingAction action) {
						Simulation.this.ceilings.add(new Ceiling(snapshot.name(), snapshot.generation(),
								Simulation.this.fixture.now(), hardExpiry));
					}

					@Override
					public void onLost(LeaseSnapshot snapshot, LeaseLossReason reason, @Nullable String errorClass) {
						Simulation.this.losses.merge(snapshot.name(), 1, Integer::sum);
						if (Boolean.getBoolean("leasekeeper.simulation.trace")) {
							System.out.println("LOST " + snapshot + " " + reason + " " + errorClass + " at "
									+ Simulation.this.fixture.now() + " faults " + Simulation.this.faults);
						}
					}
				})
				.build();
			this.leases.add(lease);
			return lease;
		}

		private void drawFaults() {
			int count = this.random.nextInt(5, 25);
			for (int i = 0; i < count; i++) {
				// outage-only seeds: one outage every few hours, so that two never fall
				// in one window
				Instant at = this.outagesOnly
						? EngineFixture.START.plus(Duration.ofHours(6L * i + 1))
							.plusSeconds(this.random.nextLong(0, 4 * 3600))
						: EngineFixture.START.plusSeconds(this.random.nextLong(600, DAYS.toSeconds() - 3600));
				int kind = this.outagesOnly ? 0 : this.random.nextInt(7);
				// outages of the outage-only seeds stay within the shortest lease's
				// margin,
				// (1 - 0.67) x 20 min - 10 s - 2 s = 384 s, less two steps: faults are
				// applied
				// a step at a time
				Duration length = switch (kind) {
					case 0 -> this.outagesOnly ? Duration.ofSeconds(this.random.nextLong(1, 384 - 2 * STEP.toSeconds()))
							: Duration.ofSeconds(this.random.nextLong(1, 45 * 60));
					case 1 -> Duration.ofSeconds(this.random.nextLong(1, 600));
					default -> Duration.ofSeconds(this.random.nextLong(1, 120));
				};
				this.faults.add(new Fault(at, kind, length));
			}
		}

		private void applyFaults() {
			Instant now = this.fixture.now();
			Instant next = now.plus(STEP);
			this.fixture.vault.up();
			this.latency = Duration.ZERO;
			for (Fault fault : this.faults) {
				boolean active = !now.isBefore(fault.at) && now.isBefore(fault.at.plus(fault.length));
				boolean starts = !fault.at.isBefore(now) && fault.at.isBefore(next);
				switch (fault.kind) {
					case 0 -> {
						if (active || starts) {
							this.fixture.vault.down();
						}
					}
					case 1 -> {
						if (active) {
							this.latency = Duration.ofSeconds(this.random.nextLong(1, 20));
						}
					}
					case 2 -> {
						if (starts) {
							this.fixture.vault.failNext(this.random.nextInt(1, 6), LeaseSourceException
								.transientFailure("http-429", "rate limit quota exceeded", null));
						}
					}
					case 3 -> {
						if (starts) {
							ManagedLease victim = this.leases.get(this.random.nextInt(this.leases.size()));
							if (victim.current().leaseId() != null) {
								this.outOfBand = true;
								this.fixture.vault.revokeOutOfBand(victim.current().leaseId());
							}
						}
					}
					case 4 -> {
						if (starts) {
							this.fixture.vault.role("orders", Duration.ofHours(1), Duration.ofHours(2));
						}
					}
					case 5 -> {
						if (starts) {
							this.fixture.scheduler.stall(fault.length);
						}
					}
					default -> {
					}
				}
			}
		}

		private void check() {
			Instant now = this.fixture.now();
			for (ManagedLease lease : this.leases) {
				LeaseSnapshot snapshot = lease.current();
				// (iii) generations only increase
				int previous = this.generations.getOrDefault(snapshot.name(), 0);
				assertThat(snapshot.generation()).as("generation of %s", snapshot.name())
					.isGreaterThanOrEqualTo(previous);
				this.generations.put(snapshot.name(), snapshot.generation());
				// (i) what the engine vouches for, Vault vouches for too (unless revoked
				// out of band, unseen yet)
				if (snapshot.state().holdsGrant() && snapshot.validUntil() != null
						&& now.isBefore(snapshot.validUntil()) && snapshot.leaseId() != null) {
					Instant vaultExpiry = this.fixture.vault.expiryOf(snapshot.leaseId());
					assertThat(vaultExpiry).as("Vault's expiry of %s", snapshot.name()).isNotNull();
					assertThat(snapshot.expiry()).as("expiry the engine believes for %s", snapshot.name())
						.isBeforeOrEqualTo(vaultExpiry);
					if (!this.outOfBand) {
						assertThat(this.fixture.vault.isAlive(snapshot.leaseId()))
							.as("%s held (generation %d) but dead in Vault", snapshot.name(), snapshot.generation())
							.isTrue();
					}
				}
			}
			// (v) a ceiling is rotated before the hard expiry whenever the store is
			// reachable
			for (Ceiling ceiling : List.copyOf(this.ceilings)) {
				if (now.isBefore(ceiling.hardExpiry)) {
					continue;
				}
				this.ceilings.remove(ceiling);
				boolean disturbed = this.faults.stream()
					.anyMatch((fault) -> !fault.at.isAfter(ceiling.hardExpiry)
							&& !fault.at.plus(fault.length).plus(STEP).isBefore(ceiling.reportedAt.minus(STEP)));
				if (!disturbed) {
					assertThat(this.generations.get(ceiling.lease))
						.as("%s generation %d reached its ceiling at %s and was not replaced before %s", ceiling.lease,
								ceiling.generation, ceiling.reportedAt, ceiling.hardExpiry)
						.isGreaterThan(ceiling.generation);
				}
			}
			// (iv) outages shorter than the margin lose nothing
			if (this.outagesOnly) {
				assertThat(this.losses).as("leases lost to short outages").isEmpty();
			}
		}

		private void shutDown() {
			List<ManagedLease> secrets = this.leases.subList(1, this.leases.size());
			secrets.forEach((lease) -> lease.stop(true));
			this.fixture.scheduler.runDue();
			this.leases.get(0).stop(true);
			this.fixture.advance(Duration.ofMinutes(1));
			// (vi) every lease ever held is revoked or has expired
			for (String id : this.fixture.vault.issued()) {
				assertThat(this.fixture.vault.isAlive(id)).as("%s still alive after shutdown", id).isFalse();
			}
		}

		/**
		 * (ii) at most one operation in flight per lease: a call's window must not
		 * overlap the previous one.
		 */
		private LeaseSource observed(String name, LeaseSource source) {
			return new LeaseSource() {

				@Override
				public Grant acquire() throws LeaseSourceException {
					enter(name);
					return source.acquire();
				}

				@Override
				public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
					enter(name);
					return source.renew(current, increment);
				}

				@Override
				public void revoke(Grant current) throws LeaseSourceException {
					source.revoke(current);
				}

			};
		}

		private void enter(String name) {
			Instant previousEnd = this.callEnds.get(name);
			assertThat(previousEnd == null || !this.fixture.now().isBefore(previousEnd))
				.as("%s started a call while its previous one was in flight", name)
				.isTrue();
			this.callingLease = name;
		}

		private Duration latencyOfCall() {
			Duration callLatency = this.latency;
			if (this.callingLease != null) {
				// in flight until the answer, or until the attempt is abandoned at its
				// timeout
				Duration inFlight = (callLatency.compareTo(RenewalPolicy.DEFAULT_ATTEMPT_TIMEOUT) < 0) ? callLatency
						: RenewalPolicy.DEFAULT_ATTEMPT_TIMEOUT;
				this.callEnds.put(this.callingLease, this.fixture.now().plus(inFlight));
				this.callingLease = null;
			}
			return callLatency;
		}

	}

	private record Fault(Instant at, int kind, Duration length) {
	}

	private record Ceiling(String lease, int generation, Instant reportedAt, Instant hardExpiry) {
	}

}
