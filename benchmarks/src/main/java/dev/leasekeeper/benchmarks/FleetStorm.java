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

	/** How long after the outage "steady" waits for the echo of its retries to fade. */
	static final Duration ECHO = Duration.ofHours(12);

	static final double[] SPREADS = { 0, 0.05, 0.25, 0.5, 1.0 };

	final int instances;

	final Duration horizon;

	final Duration outageAt;

	final int seeds;

	FleetStorm(boolean smoke) {
		this.seeds = smoke ? 2 : 10;
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
		rules.add(FleetRule.leasekeeper("(a) Leasekeeper, defaults and max-ttl: 24h",
				RenewalPolicy.DEFAULT_FIRST_RENEWAL_SPREAD, MAX_TTL));
		rules.add(FleetRule.secretLeaseContainer());
		rules.add(FleetRule.fixedLoop());
		rules.add(FleetRule.lifetimeWatcher());
		return rules;
	}

	/** What one rule did in one run. */
	record Result(String rule, boolean revokesReplaced, long requests, long revocations, double perLeaseHour,
			double steadyMean, int steadyPeak, int firstCeilingPeak, int ceilingPeak, int outagePeak, int lost,
			int[] perMinute) {

		double steadyRatio() {
			return this.steadyPeak / this.steadyMean;
		}

		double firstCeilingRatio() {
			return this.firstCeilingPeak / this.steadyMean;
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
		// the first generation's ceilings (leases issued at deployment), then the later
		// ones
		Instant deployed = Fleet.ORIGIN.plus(Duration.ofHours(1));
		boolean[] firstWindow = ceilingWindows(
				fleet.vault.issued.stream().filter((at) -> at.isBefore(deployed)).toList());
		boolean[] ceilingWindow = ceilingWindows(fleet.vault.issued);
		long steadyTotal = 0;
		int steadyMinutes = 0;
		int steadyPeak = 0;
		int firstCeilingPeak = 0;
		int ceilingPeak = 0;
		int outagePeak = 0;
		int outageEnd = (int) this.outageAt.plus(OUTAGE).toMinutes();
		for (int minute = 0; minute < this.horizon.toMinutes(); minute++) {
			int count = perMinute[minute];
			if (minute >= outageEnd && minute < outageEnd + 10) {
				outagePeak = Math.max(outagePeak, count);
			}
			if (firstWindow[minute]) {
				firstCeilingPeak = Math.max(firstCeilingPeak, count);
			}
			else if (ceilingWindow[minute]) {
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
		return new Result(rule.name, rule.revokesReplaced, requests, fleet.vault.revocations, requests / leaseHours,
				(double) steadyTotal / steadyMinutes, steadyPeak, firstCeilingPeak, ceilingPeak, outagePeak,
				fleet.lost.cardinality(), perMinute);
	}

	/**
	 * The ceiling windows of this run: from 2 h before to 1 h after the ceiling of every
	 * lease Vault issued (issued + max TTL), so that they follow each generation's actual
	 * ceiling, which moves earlier as leases rotate before it.
	 */
	private boolean[] ceilingWindows(List<Instant> issued) {
		boolean[] window = new boolean[(int) this.horizon.toMinutes() + 1];
		for (Instant at : issued) {
			long ceiling = Duration.between(Fleet.ORIGIN, at.plus(MAX_TTL)).toMinutes();
			for (long minute = Math.max(0, ceiling - 120); minute < Math.min(window.length, ceiling + 60); minute++) {
				window[(int) minute] = true;
			}
		}
		return window;
	}

	/**
	 * After the first 2 h, before the last 2 h, and away from the outage and the 12 h
	 * after it (the echo of its retries, which moved renewals together).
	 */
	private boolean isSteady(int minute) {
		long outage = this.outageAt.toMinutes();
		return minute >= 120 && minute < this.horizon.toMinutes() - 120
				&& (minute < outage || minute >= outage + ECHO.toMinutes());
	}

	/** One rule over many seeds: the mean and the max of each figure. */
	record Summary(String rule, boolean revokesReplaced, int seeds, double perLeaseHour, double revocationsPerLeaseHour,
			double steadyMean, double steadyRatio, double steadyRatioMax, double firstCeilingRatio,
			double firstCeilingRatioMax, double ceilingRatio, double ceilingRatioMax, double outageRatio,
			double outageRatioMax, double lost, int lostMax) {

		static Summary of(List<Result> runs, double leaseHours) {
			Result first = runs.get(0);
			return new Summary(first.rule(), first.revokesReplaced(), runs.size(), mean(runs, Result::perLeaseHour),
					mean(runs, (run) -> run.revocations() / leaseHours), mean(runs, Result::steadyMean),
					mean(runs, Result::steadyRatio), max(runs, Result::steadyRatio),
					mean(runs, Result::firstCeilingRatio), max(runs, Result::firstCeilingRatio),
					mean(runs, Result::ceilingRatio), max(runs, Result::ceilingRatio), mean(runs, Result::outageRatio),
					max(runs, Result::outageRatio), mean(runs, Result::lost),
					runs.stream().mapToInt(Result::lost).max().orElse(0));
		}

		private static double mean(List<Result> runs, java.util.function.ToDoubleFunction<Result> figure) {
			return runs.stream().mapToDouble(figure).average().orElse(0);
		}

		private static double max(List<Result> runs, java.util.function.ToDoubleFunction<Result> figure) {
			return runs.stream().mapToDouble(figure).max().orElse(0);
		}

	}

	double leaseHours() {
		return this.instances * (this.horizon.toSeconds() / 3600.0);
	}

	static String table(List<Summary> summaries) {
		StringBuilder table = new StringBuilder();
		table.append("| Rule | Revokes replaced | Requests per lease-hour (revocations) | Mean per minute (steady) | "
				+ "Peak minute, steady: mean (max) | Peak minute, first ceiling: mean (max) | "
				+ "Peak minute, later ceilings: mean (max) | "
				+ "Peak minute, 10 min after a 60 s outage: mean (max) | Leases lost: mean (max) |\n");
		table.append("|---|---|---|---|---|---|---|---|---|\n");
		for (Summary summary : summaries) {
			table.append(String.format(Locale.ROOT,
					"| %s | %s | %.2f (%.2f) | %.1f | %.2f× (%.2f×) | %.2f× (%.2f×) | %.2f× (%.2f×) | %.2f× (%.2f×) "
							+ "| %.1f (%d) |%n",
					summary.rule(), summary.revokesReplaced() ? "yes" : "no", summary.perLeaseHour(),
					summary.revocationsPerLeaseHour(), summary.steadyMean(), summary.steadyRatio(),
					summary.steadyRatioMax(), summary.firstCeilingRatio(), summary.firstCeilingRatioMax(),
					summary.ceilingRatio(), summary.ceilingRatioMax(), summary.outageRatio(), summary.outageRatioMax(),
					summary.lost(), summary.lostMax()));
		}
		return table.toString();
	}

}
