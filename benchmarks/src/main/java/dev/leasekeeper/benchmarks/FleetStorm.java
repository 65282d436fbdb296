package dev.leasekeeper.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import dev.leasekeeper.core.RenewalPolicy;

/**
 * Fleet storm: a fleet deployed within 10 s, each instance with one lease (TTL 1 h, max
 * TTL 24 h), simulated in virtual time under each rule. Measures what the rule costs
 * Vault and how evenly it spreads that cost.
 */
final class FleetStorm {

	static final Duration TTL = Duration.ofHours(1);

	static final Duration MAX_TTL = Duration.ofHours(24);

	static final Duration OUTAGE = Duration.ofSeconds(60);

	static final double[] SPREADS = { 0, 0.05, 0.25, 0.5, 1.0 };

	final int instances;

	final Duration horizon;

	final Duration outageAt;

	FleetStorm(boolean smoke) {
		this.instances = smoke ? 100 : 2000;
		this.horizon = smoke ? Duration.ofHours(26) : Duration.ofHours(72);
		this.outageAt = smoke ? Duration.ofHours(12) : Duration.ofHours(36);
	}

	static List<FleetRule> rules() {
		List<FleetRule> rules = new ArrayList<>();
		for (double spread : SPREADS) {
			rules.add(FleetRule.leasekeeper("(a) Leasekeeper, first-renewal-spread " + spread
					+ ((spread == RenewalPolicy.DEFAULT_FIRST_RENEWAL_SPREAD) ? " (defaults)" : ""), spread));
		}
		rules.add(FleetRule.secretLeaseContainer());
		rules.add(FleetRule.fixedLoop());
		rules.add(FleetRule.lifetimeWatcher());
		return rules;
	}

	/** What one rule did. */
	record Result(String rule, long requests, double perLeaseHour, double steadyMean, int steadyPeak, int ceilingPeak,
			int outagePeak, int lost, int[] perMinute) {

		double steadyRatio() {
			return this.steadyPeak / this.steadyMean;
		}

		double ceilingRatio() {
			return this.ceilingPeak / this.steadyMean;
		}

		double outageRatio() {
			return this.outagePeak / this.steadyMean;
		}

	}

	Result run(FleetRule rule, long seed) {
		Fleet fleet = new Fleet(TTL, MAX_TTL, this.horizon);
		SplittableRandom random = new SplittableRandom(seed);
		for (int i = 0; i < this.instances; i++) {
			Instant at = Fleet.ORIGIN.plus(Fleet.seconds(10 * random.nextDouble()));
			rule.deploy(fleet, i, at, random.split());
		}
		Instant outageFrom = Fleet.ORIGIN.plus(this.outageAt);
		fleet.vault.outage(outageFrom, OUTAGE);
		fleet.scheduler.advanceTo(Fleet.ORIGIN.plus(this.horizon));
		int[] perMinute = fleet.vault.perMinute;
		long steadyTotal = 0;
		int steadyMinutes = 0;
		int steadyPeak = 0;
		int ceilingPeak = 0;
		int outagePeak = 0;
		int outageEnd = (int) this.outageAt.plus(OUTAGE).toMinutes();
		for (int minute = 0; minute < this.horizon.toMinutes(); minute++) {
			int count = perMinute[minute];
			if (minute >= outageEnd && minute < outageEnd + 10) {
				outagePeak = Math.max(outagePeak, count);
			}
			if (isCeilingWindow(minute)) {
				ceilingPeak = Math.max(ceilingPeak, count);
			}
			else if (isSteady(minute)) {
				steadyTotal += count;
				steadyMinutes++;
				steadyPeak = Math.max(steadyPeak, count);
			}
		}
		long requests = fleet.vault.requests();
		double leaseHours = this.instances * (this.horizon.toSeconds() / 3600.0);
		return new Result(rule.name, requests, requests / leaseHours, (double) steadyTotal / steadyMinutes, steadyPeak,
				ceilingPeak, outagePeak, fleet.lost.cardinality(), perMinute);
	}

	/** From 2 h before a ceiling (24 h, 48 h, ...) to 1 h after it. */
	private boolean isCeilingWindow(int minute) {
		long ceiling = MAX_TTL.toMinutes();
		for (long at = ceiling; at <= this.horizon.toMinutes() + 120; at += ceiling) {
			if (minute >= at - 120 && minute < at + 60) {
				return true;
			}
		}
		return false;
	}

	/** After the first 2 h, before the last 2 h, and away from the outage's hour. */
	private boolean isSteady(int minute) {
		long outage = this.outageAt.toMinutes();
		return minute >= 120 && minute < this.horizon.toMinutes() - 120 && (minute < outage || minute >= outage + 60);
	}

	static String table(List<Result> results) {
		StringBuilder table = new StringBuilder();
		table.append("| Rule | Requests per lease-hour | Mean per minute (steady) | Peak minute, steady | "
				+ "Peak minute, ceiling windows | Peak minute, 10 min after a 60 s outage | Leases lost |\n");
		table.append("|---|---|---|---|---|---|---|\n");
		for (Result result : results) {
			table
				.append(String.format(Locale.ROOT, "| %s | %.2f | %.1f | %d (%.2f×) | %d (%.2f×) | %d (%.2f×) | %d |%n",
						result.rule(), result.perLeaseHour(), result.steadyMean(), result.steadyPeak(),
						result.steadyRatio(), result.ceilingPeak(), result.ceilingRatio(), result.outagePeak(),
						result.outageRatio(), result.lost()));
		}
		return table.toString();
	}

}
