package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Deterministic simulation: for each seed, a token and two secret leases obtained under
 * it, with TTLs drawn from 3 s to 24 h and every other property at its default, run
 * against the in-memory Vault while faults drawn from the seed strike at exact instants:
 * outages, latency spikes (some longer than an attempt), 429 bursts, out-of-band
 * revocations, a lowered max TTL (raised back when the fault ends), process stalls (every
 * due task runs late, when the stall ends), answers of the token and the secrets
 * delivered at one instant in a drawn order, and a path whose policy is withdrawn for a
 * while. After every transition the engine checks that a lease holding a grant has a next
 * action armed; after every step the invariants below are checked. A failing seed names
 * itself and the command that replays it alone; {@code -Dleasekeeper.simulation.seeds=N}
 * runs more seeds and {@code -Dleasekeeper.simulation.trace=true} prints each fault and
 * what the engine did.
 */
class DeterministicSimulationTests {

	private static final int SEEDS = Integer.getInteger("leasekeeper.simulation.seeds", 1000);

	private static final boolean TRACE = Boolean.getBoolean("leasekeeper.simulation.trace");

	private static final RenewalSchedule DEFAULTS = new RenewalSchedule(RenewalPolicy.defaults());

	private long steps;

	/**
	 * The requests the engine sent over all seeds: unlike the steps, they change with
	 * what it decides.
	 */
	private long requests;

	@Test
	void invariantsHoldOverManySeededRuns() {
		Long replay = Long.getLong("leasekeeper.simulation.seed");
		long first = (replay != null) ? replay : 1;
		long last = (replay != null) ? replay : SEEDS;
		Map<Kind, long[]> seen = new EnumMap<>(Kind.class);
		// the engine logs every loss at ERROR: thousands here, by design
		Logger engine = (Logger) LoggerFactory.getLogger("dev.leasekeeper.core");
		Level level = engine.getLevel();
		if (!TRACE) {
			engine.setLevel(Level.OFF);
		}
		try {
			runSeeds(first, last, seen);
		}
		finally {
			engine.setLevel(level);
		}
		StringBuilder summary = new StringBuilder();
		seen.forEach((kind, counts) -> summary.append(String
			.format("%n  %-10s %6d applied, %6d seen by the engine (%s)", kind, counts[0], counts[1], kind.effect)));
		System.out.println("Simulation: " + (last - first + 1) + " seeds, " + this.steps + " checked steps, "
				+ this.requests + " requests" + summary);
		if (replay == null) {
			// every fault must change what the engine sees, or the simulation proves
			// nothing
			for (Kind kind : Kind.values()) {
				assertThat(seen.getOrDefault(kind, new long[2])[1]).as("engine effects of %s", kind).isPositive();
			}
		}
	}

	private void runSeeds(long first, long last, Map<Kind, long[]> seen) {
		for (long seed = first; seed <= last; seed++) {
			Simulation simulation = new Simulation(seed);
			try {
				this.steps += simulation.run();
				this.requests += simulation.requests();
			}
			catch (AssertionError | IllegalStateException ex) {
				fail("seed " + seed + " broke an invariant; replay it with ./mvnw -pl autoconfigure -am test"
						+ " -Dtest=DeterministicSimulationTests -Dsurefire.failIfNoSpecifiedTests=false"
						+ " -Dleasekeeper.simulation.seed=" + seed + " -Dleasekeeper.simulation.trace=true\n"
						+ simulation.describe() + "\n" + ex.getMessage(), ex);
			}
			simulation.effects.forEach((kind, counts) -> {
				long[] total = seen.computeIfAbsent(kind, (k) -> new long[2]);
				total[0] += counts[0];
				total[1] += counts[1];
			});
		}
	}

	/** The faults drawn: a raised max TTL is the end of a lowered one. */
	private static final List<Kind> DRAWN = Arrays.stream(Kind.values())
		.filter((kind) -> kind != Kind.MAX_TTL_RAISED)
		.toList();

	/** The faults, each with what the engine must see of it. */
	enum Kind {

		OUTAGE("failed attempts while Vault refused connections"),

		LATENCY("attempts abandoned at their timeout"),

		THROTTLE("attempts answered 429"),

		REVOKE("leases found revoked out of band"),

		MAX_TTL("ceilings reported after the max TTL was lowered"),

		/** The end of a {@link #MAX_TTL} fault: the max TTL raised back. */
		MAX_TTL_RAISED("renewals past the lowered max TTL after it was raised back"),

		STALL("timers that fired late"),

		TOGETHER("token and secret answers delivered at one instant"),

		POLICY("paths refused while the token was valid");

		final String effect;

		Kind(String effect) {
			this.effect = effect;
		}

	}

	private static final class Simulation {

		private final long seed;

		private final SplittableRandom random;

		private final EngineFixture fixture = new EngineFixture();

		private final boolean outagesOnly;

		private final Map<String, Duration> ttls = new HashMap<>();

		private final Map<String, Duration> maxTtls = new HashMap<>();

		private final List<ManagedLease> leases = new ArrayList<>();

		private final Map<String, Integer> generations = new HashMap<>();

		private final List<String> losses = new ArrayList<>();

		private final Map<String, Instant> callEnds = new HashMap<>();

		private final List<Fault> faults = new ArrayList<>();

		/** The faults as they struck: one planned during a stall strikes when it ends. */
		private final List<Fault> struck = new ArrayList<>();

		private final List<Ceiling> ceilings = new ArrayList<>();

		private final Set<String> revokedOutOfBand = new HashSet<>();

		/**
		 * Leases whose expiry a renewal shortened by more than Vault's one-second
		 * truncation (a max TTL lowered under them), with when that renewal was sent:
		 * until the engine hears its answer or a later one, it cannot know, as with a
		 * revocation out of band.
		 */
		private final Map<String, Instant> shortenedUnseen = new HashMap<>();

		private final Map<Kind, long[]> effects = new EnumMap<>(Kind.class);

		private final Map<Instant, Set<String>> heldAnswers = new HashMap<>();

		private @Nullable String callingLease;

		private int outages;

		private final List<Fault> latencies = new ArrayList<>();

		private final List<Fault> holds = new ArrayList<>();

		private boolean maxTtlLowered;

		/** The generation of "orders" held, and when it was asked for. */
		private int ordersGeneration;

		private @Nullable Instant ordersStart;

		/** The max TTL of "orders" now. */
		private Duration ordersMaxTtl = Duration.ZERO;

		/**
		 * The max TTL of "orders" before an operator raised it, until a renewal outlived
		 * it.
		 */
		private @Nullable Duration maxTtlRaisedFrom;

		private @Nullable String tokenId;

		private Instant lowestCeiling = Instant.MAX;

		private Duration shortest = Duration.ZERO;

		private Duration longest = Duration.ZERO;

		Simulation(long seed) {
			this.seed = seed;
			this.random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L);
			this.outagesOnly = seed % 4 == 0;
		}

		long run() {
			for (String name : List.of("token", "orders", "reports")) {
				Duration ttl = Duration.ofSeconds(Math.round(Math.exp(Math.log(3)
						+ this.random.nextDouble() * (Math.log(Duration.ofHours(24).toSeconds()) - Math.log(3)))));
				this.ttls.put(name, ttl);
				this.maxTtls.put(name,
						this.outagesOnly ? Duration.ofHours(768) : ttl.multipliedBy(this.random.nextLong(2, 30)));
			}
			this.ordersMaxTtl = this.maxTtls.get("orders");
			this.fixture.vault.role("orders", this.ttls.get("orders"), this.ordersMaxTtl);
			this.fixture.vault.role("reports", this.ttls.get("reports"), this.maxTtls.get("reports"));
			this.shortest = this.ttls.values().stream().min(Duration::compareTo).orElseThrow();
			this.longest = this.ttls.values().stream().max(Duration::compareTo).orElseThrow();
			// twenty of the longest windows, or 20,000 of the shortest: from 2 hours to 7
			// days
			Duration length = clamp(min(this.longest.multipliedBy(20), this.shortest.multipliedBy(20_000)),
					Duration.ofHours(2), Duration.ofDays(7));
			// at most 20,000 checked steps; the engine checks its own invariant at every
			// transition
			Duration step = clamp(this.shortest.dividedBy(3), length.dividedBy(20_000), Duration.ofSeconds(30));
			RenewalPolicy policy = RenewalPolicy.builder().firstRenewalSpread(this.random.nextDouble()).build();
			ManagedLease token = lease(
					ManagedLease
						.builder("token",
								observed("token",
										this.fixture.vault.tokens(this.ttls.get("token"), this.maxTtls.get("token"))),
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
			this.fixture.scheduler.setAnswerOrder(new SplittableRandom(this.random.nextLong()));
			drawFaults(length);
			this.leases.forEach(ManagedLease::start);
			long steps = 0;
			Instant end = EngineFixture.START.plus(length);
			while (this.fixture.now().isBefore(end)) {
				this.fixture.advance(step);
				check();
				steps++;
			}
			this.fixture.advance(this.longest.multipliedBy(2));
			shutDown();
			return steps;
		}

		long requests() {
			return this.fixture.vault.journal().size();
		}

		String describe() {
			return "TTLs " + this.ttls + ", max TTLs " + this.maxTtls + ", faults " + this.faults;
		}

		private ManagedLease lease(ManagedLease.Builder builder) {
			ManagedLease lease = builder.random(new SplittableRandom(this.random.nextLong()))
				.listener(new LeaseListener() {
					@Override
					public void onCeilingReached(LeaseSnapshot snapshot, Instant hardExpiry, CeilingAction action) {
						Simulation.this.ceilings
							.add(new Ceiling(snapshot.name(), snapshot.generation(), now(), hardExpiry));
						trace("CEILING " + snapshot.name() + " " + snapshot.generation() + " hard expiry " + hardExpiry
								+ ", next at " + snapshot.nextActionAt());
						if (snapshot.name().equals("orders") && Simulation.this.maxTtlLowered
								&& hardExpiry.isBefore(Simulation.this.lowestCeiling)) {
							// the first ceiling under the lowered max TTL
							Simulation.this.lowestCeiling = hardExpiry;
							Simulation.this.maxTtlLowered = false;
							seen(Kind.MAX_TTL);
						}
					}

					@Override
					public void onRenewed(LeaseRenewal renewal) {
						trace("RENEWED " + renewal.lease().name() + " " + renewal.lease().generation() + " until "
								+ renewal.newExpiry() + (renewal.capped() ? " (capped)" : "") + ", next at "
								+ renewal.lease().nextActionAt());
						Duration raisedFrom = Simulation.this.maxTtlRaisedFrom;
						Instant start = Simulation.this.ordersStart;
						// the grant's own expiry, not the one its token bounds
						if (renewal.lease().name().equals("orders") && raisedFrom != null && start != null
								&& renewal.lease().generation() == Simulation.this.ordersGeneration
								&& now().plus(renewal.grantedTtl()).isAfter(start.plus(raisedFrom).plusSeconds(1))) {
							// the first renewal that outlives the max TTL as it was
							Simulation.this.maxTtlRaisedFrom = null;
							seen(Kind.MAX_TTL_RAISED);
						}
					}

					@Override
					public void onFailure(LeaseSnapshot snapshot, LeaseSourceException failure, int attempt,
							@Nullable Instant nextAttemptAt) {
						trace("FAILED " + snapshot.name() + " " + snapshot.generation() + " " + failure.getErrorClass()
								+ " attempt " + attempt + ", next at " + nextAttemptAt);
						switch (failure.getErrorClass()) {
							case "io" -> seen(Kind.OUTAGE);
							case "timeout" -> seen(Kind.LATENCY);
							case "http-429" -> seen(Kind.THROTTLE);
							case "lease-not-found" -> seen(Kind.REVOKE);
							case "permission-denied" -> {
								if (attempt == 1 && nextAttemptAt != null && snapshot.state() == LeaseState.LOST) {
									seen(Kind.POLICY);
								}
							}
							default -> {
							}
						}
					}

					@Override
					public void onAcquired(LeaseSnapshot snapshot) {
						started(snapshot);
						if (snapshot.name().equals("token")) {
							Simulation.this.tokenId = snapshot.leaseId();
						}
					}

					@Override
					public void onTimerLate(LeaseSnapshot snapshot, Duration lateness) {
						seen(Kind.STALL);
						trace("LATE " + snapshot.name() + " by " + lateness);
					}

					@Override
					public void onLost(LeaseSnapshot snapshot, LeaseLossReason reason, @Nullable String errorClass) {
						Simulation.this.losses.add(snapshot.name() + " " + reason + " " + errorClass + " at " + now());
						trace("LOST " + snapshot + " " + reason + " " + errorClass);
						assertExplained(snapshot.name() + " lost (" + reason + ", " + errorClass + ")");
					}

					@Override
					public void onRotated(LeaseSnapshot snapshot, int previousGeneration, RotationCause cause) {
						trace("ROTATED " + snapshot.name() + " " + previousGeneration + "->" + snapshot.generation()
								+ " " + cause);
						started(snapshot);
						// a token is replaced only once lost (a loss needs a cause of its
						// own), or when
						// Vault no longer vouches for it or will not renew it for a full
						// window: a
						// refused path is never a reason to log in again
						if (snapshot.name().equals("token") && Simulation.this.tokenId != null
								&& cause != RotationCause.LOST) {
							String old = Simulation.this.tokenId;
							assertThat(!Simulation.this.fixture.vault.isAlive(old) || !Simulation.this.fixture.vault
								.belowCeiling(old, Simulation.this.ttls.get("token")))
								.as("token %s, alive and below its ceiling, replaced at %s (%s)", old, now(), cause)
								.isTrue();
						}
						if (snapshot.name().equals("token")) {
							Simulation.this.tokenId = snapshot.leaseId();
						}
					}
				})
				.build();
			this.leases.add(lease);
			return lease;
		}

		private void drawFaults(Duration length) {
			int count = this.random.nextInt(5, 25);
			long span = length.toNanos();
			for (int i = 0; i < count; i++) {
				Kind kind = this.outagesOnly ? Kind.OUTAGE : DRAWN.get(this.random.nextInt(DRAWN.size()));
				Instant at;
				Duration duration;
				if (this.outagesOnly) {
					// one outage at a time, never two within one window
					Duration spacing = this.longest.multipliedBy(3).plusMinutes(1);
					at = EngineFixture.START.plus(spacing.multipliedBy(i + 1))
						.plusNanos(this.random.nextLong(0, this.longest.toNanos()));
					if (!at.isBefore(EngineFixture.START.plus(length))) {
						break;
					}
					duration = Duration.ofNanos(this.random.nextLong(1, promise().toNanos()));
				}
				else {
					at = EngineFixture.START.plusNanos(this.random.nextLong(span / 100, span));
					duration = switch (kind) {
						case OUTAGE -> randomUpTo(min(Duration.ofMinutes(45), this.longest.multipliedBy(2)));
						case LATENCY, POLICY -> randomUpTo(this.shortest.multipliedBy(10));
						case STALL -> randomUpTo(this.longest.multipliedBy(2));
						case MAX_TTL -> randomUpTo(this.longest.multipliedBy(4));
						case TOGETHER -> randomUpTo(DEFAULTS.budget(this.shortest).attemptTimeout().dividedBy(2));
						default -> Duration.ZERO;
					};
				}
				Fault fault = new Fault(at, kind, duration);
				this.faults.add(fault);
				this.fixture.scheduler.schedule(at, () -> start(fault));
				if (!duration.isZero()) {
					this.fixture.scheduler.schedule(at.plus(duration), () -> end(fault));
				}
			}
		}

		private void start(Fault fault) {
			this.struck.add(new Fault(now(), fault.kind, fault.length));
			seen(fault.kind, 0);
			trace("FAULT " + fault);
			switch (fault.kind) {
				case OUTAGE -> {
					this.outages++;
					this.fixture.vault.down();
				}
				case LATENCY -> this.latencies.add(fault);
				case THROTTLE -> this.fixture.vault.failNext(this.random.nextInt(1, 6),
						LeaseSourceException.transientFailure("http-429", "rate limit quota exceeded", null));
				case REVOKE -> {
					ManagedLease victim = this.leases.get(this.random.nextInt(this.leases.size()));
					String id = victim.current().leaseId();
					if (id != null) {
						// the token takes every lease obtained under it with it, those
						// the
						// engine has not heard of yet included (an answer on its way)
						this.revokedOutOfBand.addAll(this.fixture.vault.revokeOutOfBand(id));
						this.revokedOutOfBand.add(id);
					}
				}
				case MAX_TTL -> {
					this.maxTtlLowered = true;
					this.ordersMaxTtl = this.ttls.get("orders").multipliedBy(2);
					this.fixture.vault.role("orders", this.ttls.get("orders"), this.ordersMaxTtl);
				}
				case STALL -> {
					// nothing runs until the stall ends: every task that fell due runs
					// late
					this.fixture.scheduler.stall(fault.length);
				}
				case TOGETHER -> {
					this.holds.add(fault);
					this.leases.forEach(ManagedLease::renewNow);
				}
				case POLICY -> this.fixture.vault.denyReads(this.random.nextBoolean() ? "orders" : "reports");
			}
		}

		private void end(Fault fault) {
			switch (fault.kind) {
				case OUTAGE -> {
					if (--this.outages == 0) {
						this.fixture.vault.up();
					}
				}
				case LATENCY -> this.latencies.remove(fault);
				case TOGETHER -> this.holds.remove(fault);
				case MAX_TTL -> {
					// the operator raises the max TTL again: the leases may live longer
					Duration original = this.maxTtls.get("orders");
					if (original.compareTo(this.ordersMaxTtl) > 0) {
						seen(Kind.MAX_TTL_RAISED, 0);
						trace("MAX_TTL_RAISED orders from " + this.ordersMaxTtl + " to " + original);
						this.maxTtlRaisedFrom = this.ordersMaxTtl;
						this.ordersMaxTtl = original;
						this.fixture.vault.role("orders", this.ttls.get("orders"), original);
					}
				}
				case POLICY -> {
					this.fixture.vault.allowReads("orders");
					this.fixture.vault.allowReads("reports");
				}
				default -> {
				}
			}
		}

		private void check() {
			Instant now = now();
			for (ManagedLease lease : this.leases) {
				LeaseSnapshot snapshot = lease.current();
				// generations only increase
				int previous = this.generations.getOrDefault(snapshot.name(), 0);
				assertThat(snapshot.generation()).as("generation of %s", snapshot.name())
					.isGreaterThanOrEqualTo(previous);
				this.generations.put(snapshot.name(), snapshot.generation());
				// a lease holding an expiring grant has a next action armed (the engine
				// also
				// checks this after every transition)
				LeaseMachine.State state = lease.mailbox().state();
				assertThat(state.state.holdsGrant() && state.held != null && state.held.expires()
						&& state.timerAt() == null)
					.as("%s holds a grant with nothing armed", snapshot)
					.isFalse();
				// every answer applied to the current state: once nothing is in flight or
				// unanswered, the engine knows the expiry Vault will end the lease at
				LeaseMachine.State token = this.leases.get(0).mailbox().state();
				if (state.state.holdsGrant() && state.held != null && state.inFlight == null
						&& state.held.renewalSentAt() == null && token.inFlight == null && token.held != null
						&& token.held.renewalSentAt() == null && state.held.grant().expires()
						&& !this.revokedOutOfBand.contains(snapshot.leaseId())
						&& !this.shortenedUnseen.containsKey(snapshot.leaseId())) {
					Instant vaultEnd = this.fixture.vault.effectiveExpiryOf(snapshot.leaseId());
					if (vaultEnd != null && this.fixture.vault.isAlive(snapshot.leaseId())) {
						assertThat(snapshot.expiry()).as("expiry %s believes, all answers in", snapshot.name())
							.isEqualTo(vaultEnd);
					}
				}
				// what the engine vouches for, Vault vouches for too
				Instant shortened = (snapshot.leaseId() != null) ? this.shortenedUnseen.get(snapshot.leaseId()) : null;
				boolean unseen = shortened != null && snapshot.obtainedAt() != null
						&& snapshot.obtainedAt().isBefore(shortened);
				if (snapshot.state().holdsGrant() && snapshot.validUntil() != null
						&& now.isBefore(snapshot.validUntil()) && snapshot.leaseId() != null && !unseen) {
					Instant vaultExpiry = this.fixture.vault.expiryOf(snapshot.leaseId());
					assertThat(vaultExpiry).as("Vault's expiry of %s", snapshot.name()).isNotNull();
					assertThat(snapshot.expiry()).as("expiry the engine believes for %s", snapshot.name())
						.isBeforeOrEqualTo(vaultExpiry);
					if (!this.revokedOutOfBand.contains(snapshot.leaseId())) {
						assertThat(this.fixture.vault.isAlive(snapshot.leaseId()))
							.as("%s vouched for at %s but dead in Vault", snapshot, now)
							.isTrue();
					}
				}
			}
			// a ceiling is rotated before the hard expiry whenever nothing disturbed it
			for (Ceiling ceiling : List.copyOf(this.ceilings)) {
				if (now.isBefore(ceiling.hardExpiry)) {
					continue;
				}
				this.ceilings.remove(ceiling);
				boolean disturbed = this.struck.stream()
					.anyMatch((fault) -> !fault.at.isAfter(ceiling.hardExpiry)
							&& !fault.at.plus(fault.length).isBefore(ceiling.reportedAt.minus(this.longest)));
				if (!disturbed) {
					assertThat(this.generations.get(ceiling.lease))
						.as("%s generation %d reached its ceiling at %s and was not replaced before %s", ceiling.lease,
								ceiling.generation, ceiling.reportedAt, ceiling.hardExpiry)
						.isGreaterThan(ceiling.generation);
				}
			}
			// outages shorter than the promise lose nothing
			if (this.outagesOnly) {
				assertThat(this.losses).as("leases lost to outages shorter than the promise of %s", promise())
					.isEmpty();
			}
		}

		/** A loss needs a cause: a fault within the three longest windows before it. */
		private void assertExplained(String what) {
			Instant now = now();
			Instant since = now.minus(this.longest.multipliedBy(3)).minusSeconds(60);
			boolean explained = this.struck.stream()
				.anyMatch((fault) -> !fault.at.isAfter(now) && !fault.at.plus(fault.length).isBefore(since));
			assertThat(explained).as("%s at %s with no fault before it", what, now).isTrue();
		}

		/** The documented promise for the shortest window of this seed. */
		private Duration promise() {
			Duration window = this.shortest;
			RenewalSchedule.Budget budget = DEFAULTS.budget(window);
			return Duration.ofNanos((long) ((1 - RenewalPolicy.DEFAULT_RENEW_AT) * window.toNanos()))
				.minus(budget.expiryBuffer())
				.minus(budget.retryMaxInterval());
		}

		private void shutDown() {
			List<ManagedLease> secrets = this.leases.subList(1, this.leases.size());
			this.fixture.vault.up();
			this.latencies.clear();
			this.holds.clear();
			secrets.forEach((lease) -> lease.stop(true));
			this.fixture.scheduler.runDue();
			this.leases.get(0).stop(true);
			this.fixture.advance(Duration.ofMinutes(1));
			// every lease ever held is revoked or has expired
			this.fixture.advance(this.longest);
			for (String id : this.fixture.vault.issued()) {
				assertThat(this.fixture.vault.isAlive(id)).as("%s still alive after shutdown", id).isFalse();
			}
		}

		/**
		 * At most one operation in flight per lease: a call must not start while the
		 * previous one is neither answered nor abandoned at its attempt timeout.
		 */
		private LeaseSource observed(String name, LeaseSource source) {
			return new LeaseSource() {

				@Override
				public Grant acquire() throws LeaseSourceException {
					enter(name, null);
					return source.acquire();
				}

				@Override
				public Grant renew(Grant current, @Nullable Duration increment) throws LeaseSourceException {
					enter(name, current);
					Instant before = Simulation.this.fixture.vault.expiryOf(current.leaseId());
					try {
						return source.renew(current, increment);
					}
					finally {
						Instant after = Simulation.this.fixture.vault.expiryOf(current.leaseId());
						trace("RENEW " + name + " sent, Vault's expiry " + before + " -> " + after);
						if (before != null && after != null && after.isBefore(before.minusSeconds(1))) {
							Simulation.this.shortenedUnseen.put(current.leaseId(), now());
						}
					}
				}

				@Override
				public Grant lookup(Grant current) throws LeaseSourceException {
					enter(name, current);
					return source.lookup(current);
				}

				@Override
				public void revoke(Grant current) throws LeaseSourceException {
					source.revoke(current);
				}

			};
		}

		private void enter(String name, @Nullable Grant current) {
			// current is the grant renewed or looked up, null for an acquisition; a lease
			// that
			// lost its grant abandons the renewal in flight and acquires at once
			Instant previousEnd = this.callEnds.get(name);
			boolean afterLoss = current == null && lease(name).mailbox().state().state == LeaseState.ACQUIRING;
			assertThat(previousEnd == null || afterLoss || !now().isBefore(previousEnd))
				.as("%s started a call at %s while its previous one was in flight until %s", name, now(), previousEnd)
				.isTrue();
			this.callingLease = name;
		}

		private Duration latencyOfCall() {
			Instant now = now();
			Duration latency = Duration.ZERO;
			for (Fault hold : this.holds) {
				// every answer due in the window comes back at its end, in a drawn order
				latency = Duration.between(now, hold.at.plus(hold.length));
				Set<String> together = this.heldAnswers.computeIfAbsent(hold.at, (at) -> new HashSet<>());
				if (this.callingLease != null && together.add(this.callingLease) && together.contains("token")
						&& together.size() == 2) {
					seen(Kind.TOGETHER);
				}
			}
			if (!this.latencies.isEmpty()) {
				latency = Duration.ofNanos(
						this.random.nextLong(1, 3 * DEFAULTS.budget(this.shortest).attemptTimeout().toNanos() + 1));
			}
			if (this.callingLease != null) {
				// in flight until the answer, or until the engine abandons the attempt
				String name = this.callingLease;
				Instant deadline = lease(name).mailbox().state().attemptDeadline;
				Instant answer = now.plus(latency);
				this.callEnds.put(name,
						((deadline != null && deadline.isBefore(answer)) ? deadline : answer).minusNanos(1));
				this.callingLease = null;
			}
			return latency;
		}

		private ManagedLease lease(String name) {
			return this.leases.stream().filter((lease) -> lease.getName().equals(name)).findFirst().orElseThrow();
		}

		/**
		 * Note when a generation of "orders" was asked for: its max TTL runs from then.
		 */
		private void started(LeaseSnapshot snapshot) {
			if (snapshot.name().equals("orders")) {
				this.ordersGeneration = snapshot.generation();
				this.ordersStart = snapshot.obtainedAt();
			}
		}

		private void seen(Kind kind) {
			seen(kind, 1);
		}

		private void seen(Kind kind, int index) {
			this.effects.computeIfAbsent(kind, (k) -> new long[2])[index]++;
		}

		private void trace(String line) {
			if (TRACE) {
				System.out.println(now() + " " + line);
			}
		}

		private Instant now() {
			return this.fixture.now();
		}

		private Duration randomUpTo(Duration bound) {
			return Duration.ofNanos(this.random.nextLong(1, Math.max(2, bound.toNanos())));
		}

		private static Duration clamp(Duration value, Duration low, Duration high) {
			return min(high, (value.compareTo(low) < 0) ? low : value);
		}

		private static Duration min(Duration a, Duration b) {
			return (a.compareTo(b) <= 0) ? a : b;
		}

	}

	private record Fault(Instant at, Kind kind, Duration length) {
	}

	private record Ceiling(String lease, int generation, Instant reportedAt, Instant hardExpiry) {
	}

}
