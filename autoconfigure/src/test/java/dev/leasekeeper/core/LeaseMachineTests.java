package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.leasekeeper.core.LeaseEffect.AttemptFailed;
import dev.leasekeeper.core.LeaseEffect.CeilingReached;
import dev.leasekeeper.core.LeaseEffect.Late;
import dev.leasekeeper.core.LeaseEffect.Lost;
import dev.leasekeeper.core.LeaseEffect.Offer;
import dev.leasekeeper.core.LeaseEffect.PathRefused;
import dev.leasekeeper.core.LeaseEffect.Release;
import dev.leasekeeper.core.LeaseEffect.Renewed;
import dev.leasekeeper.core.LeaseEffect.Revoke;
import dev.leasekeeper.core.LeaseEffect.Rotated;
import dev.leasekeeper.core.LeaseEffect.Send;
import dev.leasekeeper.core.LeaseEffect.Shutdown;
import dev.leasekeeper.core.LeaseEffect.TellDependents;
import dev.leasekeeper.core.LeaseEffect.VerifyToken;
import dev.leasekeeper.core.LeaseInput.TokenNews;
import dev.leasekeeper.core.LeaseMachine.Next;
import dev.leasekeeper.core.LeaseMachine.Op;
import dev.leasekeeper.core.LeaseMachine.State;
import dev.leasekeeper.core.LeaseMachine.TokenView;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease's transition table, case by case: a state, an input, and the state and
 * effects that must follow. Every row also checks the invariant that a lease holding an
 * expiring grant has a next action armed.
 */
class LeaseMachineTests {

	private static final Instant T0 = Instant.parse("2026-01-05T09:00:00Z");

	private static final Duration HOUR = Duration.ofHours(1);

	private static final RenewalSchedule SCHEDULE = new RenewalSchedule(RenewalPolicy.defaults());

	private static final Grant GRANT = new Grant("database/creds/orders/1", HOUR, true,
			Map.of("username", "u", "password", "p"), List.of(), T0);

	private static final Grant NEW_GRANT = new Grant("database/creds/orders/2", HOUR, true,
			Map.of("username", "u2", "password", "p2"), List.of(), T0.plus(Duration.ofMinutes(40)));

	private static final Instant RENEWAL = T0.plus(Duration.ofMinutes(40));

	private static final Instant VALID_UNTIL = T0.plus(HOUR).minusSeconds(2);

	private static final TokenView TOKEN = new TokenView(1, true, T0.plus(Duration.ofHours(2)),
			T0.plus(Duration.ofHours(2)).minusSeconds(2));

	static Stream<Row> table() {
		return Stream.of(
				row("new + start → acquiring, one acquisition", (s) -> new State(), new LeaseInput.Start(), T0, null,
						LeaseState.ACQUIRING, Send.class),
				row("active + renewal timer on time → renewing", active(), timer(RENEWAL), RENEWAL, null,
						LeaseState.RENEWING, Send.class),
				row("active + renewal timer late within validity → renewing, reported late", active(), timer(RENEWAL),
						RENEWAL.plusSeconds(60), null, LeaseState.RENEWING, Late.class, Send.class),
				row("active + renewal timer after the validity → uncertain, one renewal", active(), timer(RENEWAL),
						VALID_UNTIL.plusSeconds(600), null, LeaseState.EXPIRED, Late.class, Send.class),
				row("uncertain + renewal refused → lost, reacquired", uncertain(), failed(Op.RENEW, gone()),
						VALID_UNTIL.plusSeconds(601), null, LeaseState.ACQUIRING, AttemptFailed.class, Lost.class,
						TellDependents.class, Send.class),
				row("uncertain + renewed → active, kept", uncertain(), answered(Op.RENEW, renewedAt(601)),
						VALID_UNTIL.plusSeconds(601), null, LeaseState.ACTIVE, Renewed.class, TellDependents.class),
				row("renewing + renewed → active, next renewal planned", renewing(), answered(Op.RENEW, renewedAt(0)),
						RENEWAL, null, LeaseState.ACTIVE, Renewed.class, TellDependents.class),
				row("renewing + renewed shorter than the increment → ceiling, rotation planned",
						(s) -> renewing().apply(s), answered(Op.RENEW, capped()), RENEWAL, null, LeaseState.CEILING,
						Renewed.class, CeilingReached.class, TellDependents.class),
				row("renewing + transient failure → retrying, next attempt planned", renewing(),
						failed(Op.RENEW, transientFailure()), RENEWAL, null, LeaseState.RETRYING, AttemptFailed.class),
				row("renewing + attempt deadline passes → retrying", renewing(), timer(RENEWAL.plusSeconds(10)),
						RENEWAL.plusSeconds(10), null, LeaseState.RETRYING, AttemptFailed.class),
				row("retrying + failure after the last attempt → expiry planned at the validity", retryingAtTheEnd(),
						failed(Op.RENEW, transientFailure()), VALID_UNTIL.minusMillis(1), null, LeaseState.RETRYING,
						AttemptFailed.class),
				row("retrying + expiry timer on time → lost, reacquired", expiring(), timer(VALID_UNTIL), VALID_UNTIL,
						null, LeaseState.ACQUIRING, Lost.class, TellDependents.class, Send.class),
				row("dependent + expiry timer at the instant its token's validity ends too → lost, waits for the token",
						expiring(), timer(VALID_UNTIL), VALID_UNTIL,
						new TokenView(1, true, VALID_UNTIL.plusSeconds(2), VALID_UNTIL), LeaseState.EXPIRED, Lost.class,
						TellDependents.class),
				row("renewing + lease gone → lost, reacquired at once", renewing(), failed(Op.RENEW, gone()), RENEWAL,
						null, LeaseState.ACQUIRING, AttemptFailed.class, Lost.class, TellDependents.class, Send.class),
				row("renewing + not renewable any more → rotating at once", renewing(),
						failed(Op.RENEW, LeaseSourceException.permanent("past-max-ttl", "past the max TTL")), RENEWAL,
						null, LeaseState.ROTATING, AttemptFailed.class, CeilingReached.class, Send.class),
				row("token renewing + unauthorized → lost, logged in again", renewing(),
						failed(Op.RENEW, unauthorized()), RENEWAL, null, LeaseState.ACQUIRING, AttemptFailed.class,
						Lost.class, TellDependents.class, Send.class),
				row("dependent renewing + unauthorized → the token verifies itself, retry planned", renewing(),
						failed(Op.RENEW, unauthorized()), RENEWAL, TOKEN, LeaseState.RETRYING, VerifyToken.class,
						AttemptFailed.class),
				row("dependent refused + token confirmed → that path alone refused, long back-off",
						refusedAcquisition(), new LeaseInput.TokenChanged(TokenNews.CONFIRMED, 1, null, null), RENEWAL,
						TOKEN, LeaseState.LOST, PathRefused.class, LeaseEffect.FirstGrantFailed.class, Lost.class),
				row("token active + verification asked → look-up sent, plan kept", active(),
						new LeaseInput.VerifyRequested(1), RENEWAL.minusSeconds(60), null, LeaseState.ACTIVE,
						Send.class),
				row("rotating + acquired → offered to the consumers", rotating(), answered(Op.ACQUIRE, NEW_GRANT),
						RENEWAL, null, LeaseState.ROTATING, Offer.class),
				row("rotating at the ceiling + the held credential given back → kept to its end, nothing offered",
						(s) -> {
							rotating().apply(s);
							s.ceilingReportedFor = 1;
							s.cause = RotationCause.CEILING;
							return s;
						}, answered(Op.ACQUIRE, sameCredential(RENEWAL)), RENEWAL, null, LeaseState.ACTIVE,
						LeaseEffect.CannotBeReplaced.class),
				row("rotating before its end + the held credential given back → renewed on, nothing offered",
						rotating(), answered(Op.ACQUIRE, sameCredential(RENEWAL)), RENEWAL, null, LeaseState.ACTIVE),
				row("lost at its end + the same credential given back → not taken, next try after its expiry", (s) -> {
					rotating().apply(s);
					s.ceilingReportedFor = 1;
					s.state = LeaseState.ACQUIRING;
					s.held = s.held.goneAt(VALID_UNTIL);
					return s;
				}, answered(Op.ACQUIRE, sameCredential(VALID_UNTIL)), VALID_UNTIL, null, LeaseState.ACQUIRING),
				row("lost before its end + the same credential given back → taken again, offered", (s) -> {
					rotating().apply(s);
					s.state = LeaseState.ACQUIRING;
					s.held = s.held.goneAt(VALID_UNTIL);
					return s;
				}, answered(Op.ACQUIRE, sameCredential(VALID_UNTIL)), VALID_UNTIL, null, LeaseState.ACQUIRING,
						Offer.class),
				row("rotating + the same credential given back with a new TTL (a secret read again) → offered",
						rotating(),
						answered(Op.ACQUIRE, new Grant(GRANT.leaseId(), HOUR, false, GRANT.data(), List.of(), RENEWAL)),
						RENEWAL, null, LeaseState.ROTATING, Offer.class),
				row("dependent acquired under a replaced token → revoked, acquired again", rotating(),
						answered(Op.ACQUIRE, NEW_GRANT), RENEWAL, new TokenView(2, true, null, null),
						LeaseState.ROTATING, Revoke.class, Send.class),
				row("offered + accepted → active with the next generation, old one released", offered(),
						new LeaseInput.Accepted(Held.of(NEW_GRANT, 2, 0, null, null, SCHEDULE)), RENEWAL, null,
						LeaseState.ACTIVE, Rotated.class, TellDependents.class, Release.class),
				row("offered + rejected → old grant kept, candidate revoked, retry", offered(),
						new LeaseInput.Rejected(Held.of(NEW_GRANT, 2, 0, null, null, SCHEDULE),
								new IllegalStateException("cannot log in")),
						RENEWAL, null, LeaseState.ROTATING, Revoke.class, LeaseEffect.ReplacementRejected.class,
						AttemptFailed.class),
				row("dependent active + token replaced → moves to it at an instant of the first half of the time left",
						active(), new LeaseInput.TokenChanged(TokenNews.REPLACED, 2, null, null),
						RENEWAL.minusSeconds(60), new TokenView(2, true, null, null), LeaseState.ACTIVE),
				row("dependent active + token replaced with under two seconds left → rotating under it at once",
						active(), new LeaseInput.TokenChanged(TokenNews.REPLACED, 2, null, null),
						VALID_UNTIL.minusSeconds(1), new TokenView(2, true, null, null), LeaseState.ROTATING,
						Send.class),
				row("dependent active + token lost → expired, waits for the token", active(),
						new LeaseInput.TokenChanged(TokenNews.LOST, 1, null, null), RENEWAL.minusSeconds(60),
						new TokenView(1, false, null, null), LeaseState.EXPIRED, Lost.class, TellDependents.class),
				row("retrying with a replacement asked for + renewal failed → the replacement runs now", (s) -> {
					renewing().apply(s);
					s.pending = Op.ACQUIRE;
					s.cause = RotationCause.REJECTED;
					return s;
				}, failed(Op.RENEW, transientFailure()), RENEWAL, null, LeaseState.ROTATING, AttemptFailed.class,
						Send.class),
				row("renewing + renewal asked → coalesced, nothing sent", renewing(), new LeaseInput.RenewRequested(),
						RENEWAL, null, LeaseState.RENEWING),
				row("active past its validity, timer not yet fired + renewal asked → uncertain, one renewal", active(),
						new LeaseInput.RenewRequested(), VALID_UNTIL.plusSeconds(5), null, LeaseState.EXPIRED,
						Send.class),
				row("dependent active past its validity + token gone → lost, waits for the token", active(),
						new LeaseInput.RotateRequested(RotationCause.MANUAL), VALID_UNTIL.plusSeconds(5),
						new TokenView(1, false, null, null), LeaseState.EXPIRED, Lost.class, TellDependents.class),
				row("active + stop → revoked", active(), new LeaseInput.Stop(true), RENEWAL, null, LeaseState.REVOKED,
						Shutdown.class),
				row("stopped + late acquisition → revoked", (s) -> stopped(), answered(Op.ACQUIRE, NEW_GRANT), RENEWAL,
						null, LeaseState.REVOKED, Revoke.class));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("table")
	void eachStateAndInputLeadToTheStateAndEffectsOfTheTable(Row row) {
		boolean dependent = row.token() != null;
		LeaseMachine machine = new LeaseMachine(
				new LeaseMachine.Settings(SCHEDULE, null, CeilingAction.ROTATE, true, true, dependent),
				new SplittableRandom(1));
		State given = row.given().apply(new State());
		State before = given.copy();
		LeaseMachine.Transition transition = machine.apply(given, row.input(), row.now(), row.token());
		assertThat(transition.state().state).as("next state").isEqualTo(row.state());
		assertThat(transition.effects()).map(Object::getClass)
			.as("effects")
			.containsExactly(row.effects().toArray(new Class<?>[0]));
		assertThat(LeaseMachine.violation(transition.state())).as("invariant").isNull();
		// a pure function: the state it was given is left as it was
		assertThat(given.state).isEqualTo(before.state);
		assertThat(given.held).isEqualTo(before.held);
		assertThat(given.inFlight).isEqualTo(before.inFlight);
	}

	@Test
	void onlyARenewableGrantsShortWindowIsWarnedAbout() {
		LeaseMachine machine = new LeaseMachine(
				new LeaseMachine.Settings(SCHEDULE, null, CeilingAction.ROTATE, true, true, false),
				new SplittableRandom(1));
		Duration twoSeconds = Duration.ofSeconds(2);
		Grant renewable = new Grant("database/creds/orders/2", twoSeconds, true, Map.of(), List.of(), RENEWAL);
		// what is left of a grant read again on its own schedule (a fleet's published
		// grant, a static role's password just before Vault rotates it)
		Grant reread = new Grant("database/creds/orders/2", twoSeconds, false, Map.of(), List.of(), RENEWAL,
				Duration.ofSeconds(1));
		assertThat(machine
			.apply(offered().apply(new State()),
					new LeaseInput.Accepted(Held.of(renewable, 2, 0, null, null, SCHEDULE)), RENEWAL, null)
			.effects()).hasAtLeastOneElementOfType(LeaseEffect.WindowTooShort.class);
		assertThat(machine
			.apply(offered().apply(new State()), new LeaseInput.Accepted(Held.of(reread, 2, 0, null, null, SCHEDULE)),
					RENEWAL, null)
			.effects()).noneMatch(LeaseEffect.WindowTooShort.class::isInstance);
	}

	@Test
	void theInvariantSeesALeaseHoldingAGrantWithNothingArmed() {
		State stuck = active().apply(new State());
		stuck.nextAt = null;
		stuck.next = null;
		assertThat(LeaseMachine.violation(stuck)).contains("no next action");
	}

	@Test
	void aRenewalAnsweredIsAppliedToTheCurrentTokenExpiryNotTheOneAtSendTime() {
		LeaseMachine machine = new LeaseMachine(
				new LeaseMachine.Settings(SCHEDULE, null, CeilingAction.ROTATE, true, true, true),
				new SplittableRandom(1));
		State state = renewing().apply(new State());
		Instant tokenExpiry = T0.plus(Duration.ofMinutes(50));
		state = machine
			.apply(state, new LeaseInput.TokenChanged(TokenNews.RENEWED, 1, tokenExpiry, tokenExpiry.minusSeconds(2)),
					RENEWAL, TOKEN)
			.state();
		state = machine.apply(state, answered(Op.RENEW, renewedAt(1)), RENEWAL.plusSeconds(1), TOKEN).state();
		assertThat(state.held.expiry()).isEqualTo(tokenExpiry);
	}

	private static UnaryOperator<State> active() {
		return (s) -> {
			s.state = LeaseState.ACTIVE;
			s.generation = 1;
			s.held = Held.of(GRANT, 1, 1, null, null, SCHEDULE);
			s.fullTtl = HOUR;
			s.next = Next.RENEW;
			s.nextAt = RENEWAL;
			return s;
		};
	}

	private static UnaryOperator<State> renewing() {
		return (s) -> {
			active().apply(s);
			s.state = LeaseState.RENEWING;
			s.inFlight = Op.RENEW;
			s.attemptDeadline = RENEWAL.plusSeconds(10);
			s.next = null;
			s.nextAt = null;
			return s;
		};
	}

	private static UnaryOperator<State> uncertain() {
		return (s) -> {
			renewing().apply(s);
			s.state = LeaseState.EXPIRED;
			s.attemptDeadline = VALID_UNTIL.plusSeconds(610);
			return s;
		};
	}

	private static UnaryOperator<State> retryingAtTheEnd() {
		return (s) -> {
			renewing().apply(s);
			s.state = LeaseState.RETRYING;
			s.failures = 9;
			return s;
		};
	}

	private static UnaryOperator<State> expiring() {
		return (s) -> {
			active().apply(s);
			s.state = LeaseState.RETRYING;
			s.failures = 10;
			s.next = Next.EXPIRE;
			s.nextAt = VALID_UNTIL;
			return s;
		};
	}

	/** What a token given in configuration answers a log-in with: itself. */
	private static Grant sameCredential(Instant at) {
		return new Grant(GRANT.leaseId(), Duration.between(at, T0.plus(HOUR)), true, GRANT.data(), List.of(), at);
	}

	private static UnaryOperator<State> rotating() {
		return (s) -> {
			active().apply(s);
			s.state = LeaseState.ROTATING;
			s.inFlight = Op.ACQUIRE;
			s.sentUnder = 1;
			s.attemptDeadline = RENEWAL.plusSeconds(10);
			s.next = null;
			s.nextAt = null;
			return s;
		};
	}

	private static UnaryOperator<State> offered() {
		return (s) -> {
			rotating().apply(s);
			s.inFlight = Op.OFFER;
			s.attemptDeadline = null;
			s.cause = RotationCause.CEILING;
			return s;
		};
	}

	private static UnaryOperator<State> refusedAcquisition() {
		return (s) -> {
			s.state = LeaseState.ACQUIRING;
			s.failures = 1;
			s.lastFailure = unauthorized();
			s.next = Next.ACQUIRE;
			s.nextAt = RENEWAL.plusSeconds(1);
			return s;
		};
	}

	private static State stopped() {
		State s = active().apply(new State());
		s.state = LeaseState.REVOKED;
		s.next = null;
		s.nextAt = null;
		return s;
	}

	private static Grant renewedAt(long secondsAfterRenewal) {
		return Grant.of(GRANT.leaseId(), HOUR, true, RENEWAL.plusSeconds(secondsAfterRenewal));
	}

	private static Grant capped() {
		return new Grant(GRANT.leaseId(), Duration.ofMinutes(10), true, Map.of(),
				List.of("TTL of \"1h\" exceeded the effective max_ttl of \"10m\"; TTL value is capped accordingly"),
				RENEWAL);
	}

	private static LeaseInput timer(Instant due) {
		return new LeaseInput.TimerFired(due);
	}

	private static LeaseInput answered(Op op, Grant grant) {
		return new LeaseInput.Answered(op, grant);
	}

	private static LeaseInput failed(Op op, LeaseSourceException failure) {
		return new LeaseInput.Failed(op, failure);
	}

	private static LeaseSourceException transientFailure() {
		return LeaseSourceException.transientFailure("io", "connection refused", null);
	}

	private static LeaseSourceException gone() {
		return LeaseSourceException.gone("lease-not-found", "lease not found");
	}

	private static LeaseSourceException unauthorized() {
		return LeaseSourceException.unauthorized("permission-denied", "permission denied");
	}

	@SafeVarargs
	private static Row row(String name, UnaryOperator<State> given, LeaseInput input, Instant now,
			@Nullable TokenView token, LeaseState state, Class<? extends LeaseEffect>... effects) {
		return new Row(name, given, input, now, token, state, List.of(effects));
	}

	record Row(String name, UnaryOperator<State> given, LeaseInput input, Instant now, @Nullable TokenView token,
			LeaseState state, List<Class<? extends LeaseEffect>> effects) {

		@Override
		public String toString() {
			return this.name;
		}

	}

}
