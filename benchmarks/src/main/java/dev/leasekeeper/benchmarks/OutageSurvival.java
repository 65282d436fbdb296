package dev.leasekeeper.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import dev.leasekeeper.core.RenewalPolicy;
import dev.leasekeeper.core.RenewalSchedule;

/**
 * Outage survival: the share of a fleet's leases lost to one outage, against the outage's
 * length as a fraction of the TTL, each rule with its own error handling. The instances
 * are deployed over one TTL and the outage starts at a random point, so that every outage
 * meets every renewal phase.
 */
final class OutageSurvival {

	static final double[] FRACTIONS = { 0.02, 0.05, 0.1, 0.2, 0.3, 0.32, 0.34, 0.4, 0.5, 0.75, 1.0 };

	static final double[] SMOKE_FRACTIONS = { 0.1, 0.5 };

	final int instances;

	final int seeds;

	final double[] fractions;

	OutageSurvival(boolean smoke) {
		this.instances = smoke ? 100 : 2000;
		this.seeds = smoke ? 1 : 3;
		// and the longest outage promised to lose nothing, to the second
		double promised = promised().toSeconds() / (double) FleetStorm.TTL.toSeconds();
		this.fractions = java.util.stream.DoubleStream
			.concat(Arrays.stream(smoke ? SMOKE_FRACTIONS : FRACTIONS), java.util.stream.DoubleStream.of(promised))
			.sorted()
			.toArray();
	}

	static List<FleetRule> rules() {
		return List.of(FleetRule.leasekeeper("(a) Leasekeeper defaults", RenewalPolicy.DEFAULT_FIRST_RENEWAL_SPREAD),
				FleetRule.secretLeaseContainer(), FleetRule.fixedLoop(), FleetRule.lifetimeWatcher());
	}

	/**
	 * The longest outage Leasekeeper's defaults promise to lose nothing in:
	 * {@code (1 − renewAt) × TTL − expiryBuffer − retryMaxInterval}, the last two from
	 * the budget of the window.
	 */
	static Duration promised() {
		RenewalPolicy policy = RenewalPolicy.defaults();
		RenewalSchedule.Budget budget = new RenewalSchedule(policy).budget(FleetStorm.TTL);
		return Fleet.seconds((1 - policy.renewAt()) * FleetStorm.TTL.toSeconds())
			.minus(budget.expiryBuffer())
			.minus(budget.retryMaxInterval());
	}

	/**
	 * The share of leases lost, averaged over the seeds: to an outage starting at a
	 * random point of an ordinary hour, or, {@code nearCeiling}, of the hour before the
	 * first ceilings (the fleet's leases reach their max TTL between 24 h and 25 h, so
	 * the outage meets them in their last renewal window, where they rotate).
	 */
	double lostShare(FleetRule rule, double fraction, boolean nearCeiling) {
		double lost = 0;
		for (int seed = 0; seed < this.seeds; seed++) {
			SplittableRandom random = new SplittableRandom(31L * seed + 7);
			Duration outage = Fleet.seconds(fraction * FleetStorm.TTL.toSeconds());
			Duration hour = nearCeiling ? FleetStorm.MAX_TTL.minus(FleetStorm.TTL) : Duration.ofHours(10);
			Instant from = Fleet.ORIGIN.plus(hour).plus(Fleet.seconds(3600 * random.nextDouble()));
			Instant end = from.plus(outage).plus(Duration.ofHours(2));
			Fleet fleet = new Fleet(FleetStorm.TTL, FleetStorm.MAX_TTL, Duration.between(Fleet.ORIGIN, end));
			for (int i = 0; i < this.instances; i++) {
				Instant at = Fleet.ORIGIN.plus(Fleet.seconds(FleetStorm.TTL.toSeconds() * random.nextDouble()));
				rule.deploy(fleet, i, at, random.split());
			}
			// nothing before the outage counts
			fleet.scheduler.advanceTo(from.minusSeconds(1));
			fleet.lost.clear();
			fleet.vault.outage(from, outage);
			fleet.scheduler.advanceTo(end);
			lost += (double) fleet.lost.cardinality() / this.instances;
		}
		return lost / this.seeds;
	}

	static String table(double[] fractions, List<String> rules, double[][] lost) {
		StringBuilder table = new StringBuilder("| Outage (fraction of TTL) | Outage |");
		for (String rule : rules) {
			table.append(' ').append(rule).append(" |");
		}
		table.append('\n').append("|---|---|").append("---|".repeat(rules.size())).append('\n');
		for (int f = 0; f < fractions.length; f++) {
			table.append(String.format(Locale.ROOT, "| %.3f | %d s |", fractions[f],
					Math.round(fractions[f] * FleetStorm.TTL.toSeconds())));
			for (int r = 0; r < rules.size(); r++) {
				table.append(String.format(Locale.ROOT, " %.1f %% |", 100 * lost[r][f]));
			}
			table.append('\n');
		}
		return table.toString();
	}

}
