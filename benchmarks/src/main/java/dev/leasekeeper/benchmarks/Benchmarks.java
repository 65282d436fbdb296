package dev.leasekeeper.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.leasekeeper.core.RenewalPolicy;

/**
 * Entry point of the benchmarks:
 * {@code Benchmarks <storm|token|outage|overhead|rotation|fleet>
 * [--smoke]}. Each prints its table and writes it, with its plots, to {@code results/}
 * ({@code target/smoke/} in smoke mode).
 */
public final class Benchmarks {

	private Benchmarks() {
	}

	/**
	 * Run one benchmark.
	 * @param args the benchmark's name, then {@code --smoke} for a run of seconds
	 * @throws Exception if it cannot run
	 */
	public static void main(String[] args) throws Exception {
		if (args.length == 0) {
			throw new IllegalArgumentException("Name a benchmark: storm, token, outage, overhead, rotation or fleet");
		}
		boolean smoke = Arrays.asList(args).contains("--smoke");
		Path out = smoke ? Path.of("target", "smoke") : Path.of("results");
		Files.createDirectories(out);
		String table = switch (args[0]) {
			case "storm" -> storm(smoke, out);
			case "outage" -> outage(smoke, out);
			case "overhead" -> EngineOverhead.run(smoke);
			case "rotation" -> RotationUnderLoad.run(smoke);
			case "token" -> new TokenStorm(smoke).table(3);
			case "fleet" -> new GroupSharing(smoke).table();
			default -> throw new IllegalArgumentException(
					"Unknown benchmark '" + args[0] + "': expected storm, token, outage, overhead, rotation or fleet");
		};
		System.out.println();
		System.out.println(table);
		Files.writeString(out.resolve(args[0] + ".md"), table);
		if (!smoke) {
			record(Path.of("RESULTS.md"), args[0], table);
		}
	}

	/**
	 * Put the table into its block of {@code RESULTS.md}, with the command and the
	 * machine that produced it.
	 */
	static void record(Path results, String name, String table) throws Exception {
		String begin = "<!-- " + name + ":begin -->\n";
		String end = "<!-- " + name + ":end -->";
		String text = Files.exists(results) ? Files.readString(results) : "";
		int from = text.indexOf(begin);
		int to = text.indexOf(end);
		if (from < 0 || to < from) {
			return;
		}
		String measured = String.format(java.util.Locale.ROOT,
				"Measured %s by `./mvnw -B verify -pl benchmarks -am -DskipTests -Dbench=%s` on %d cores (%s), "
						+ "Java %s, %s.%n%n",
				java.time.LocalDate.now(java.time.ZoneOffset.UTC), name, Runtime.getRuntime().availableProcessors(),
				cpu(), System.getProperty("java.version"), System.getProperty("os.name"));
		Files.writeString(results, text.substring(0, from + begin.length()) + measured + table + text.substring(to));
	}

	private static String cpu() {
		try {
			return Files.readAllLines(Path.of("/proc/cpuinfo"))
				.stream()
				.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).trim())
				.findFirst()
				.orElse("unknown CPU");
		}
		catch (Exception ex) {
			return "unknown CPU";
		}
	}

	static String storm(boolean smoke, Path out) throws Exception {
		FleetStorm storm = new FleetStorm(smoke);
		List<FleetStorm.Result> firstSeed = new ArrayList<>();
		List<FleetStorm.Summary> summaries = new ArrayList<>();
		for (FleetRule rule : FleetStorm.rules()) {
			long started = System.nanoTime();
			List<FleetStorm.Result> runs = new ArrayList<>();
			for (int seed = 0; seed < storm.seeds; seed++) {
				runs.add(storm.run(rule, 3 + seed));
			}
			firstSeed.add(runs.get(0));
			summaries.add(FleetStorm.Summary.of(runs, storm.leaseHours()));
			System.out.printf("storm: %s, %d seeds in %.1f s%n", rule.name, storm.seeds,
					(System.nanoTime() - started) / 1e9);
		}
		int defaults = Arrays.binarySearch(FleetStorm.SPREADS, RenewalPolicy.DEFAULT_FIRST_RENEWAL_SPREAD);
		int peers = FleetStorm.SPREADS.length;
		List<FleetStorm.Result> compared = new ArrayList<>();
		compared.add(firstSeed.get(defaults));
		compared.addAll(firstSeed.subList(peers, firstSeed.size()));
		Charts.requestsPerMinute(out.resolve("storm-rules.png"),
				"Requests per minute, " + storm.instances + " instances, by rule (seed 3)", compared);
		Charts.requestsPerMinute(out.resolve("storm-spread.png"), "Leasekeeper, by first-renewal-spread (seed 3)",
				firstSeed.subList(0, peers));
		return "Fleet storm: " + storm.instances + " instances deployed within 10 s, TTL 1 h, max TTL 24 h, "
				+ storm.horizon.toHours() + " h simulated, a 60 s outage at " + storm.outageAt.toHours() + " h; "
				+ storm.seeds + " seeds per rule, ratios over the steady mean per minute\n\n"
				+ FleetStorm.table(summaries);
	}

	static String outage(boolean smoke, Path out) throws Exception {
		OutageSurvival survival = new OutageSurvival(smoke);
		List<FleetRule> rules = OutageSurvival.rules();
		double[][] lost = new double[rules.size()][survival.fractions.length];
		double[][] lostNearCeiling = new double[rules.size()][survival.fractions.length];
		for (int r = 0; r < rules.size(); r++) {
			long started = System.nanoTime();
			for (int f = 0; f < survival.fractions.length; f++) {
				lost[r][f] = survival.lostShare(rules.get(r), survival.fractions[f], false);
				lostNearCeiling[r][f] = survival.lostShare(rules.get(r), survival.fractions[f], true);
			}
			System.out.printf("outage: %s in %.1f s%n", rules.get(r).name, (System.nanoTime() - started) / 1e9);
		}
		List<String> names = rules.stream().map((rule) -> rule.name).toList();
		Charts.survival(out.resolve("outage.png"), survival.fractions, names, lost);
		return "Outage survival: " + survival.instances
				+ " instances deployed over one TTL (1 h), one outage starting at " + "a random point, "
				+ survival.seeds + " seed(s) per row; Leasekeeper promises no loss up to "
				+ OutageSurvival.promised().toSeconds() + " s\n\n"
				+ OutageSurvival.table(survival.fractions, names, lost)
				+ "\nThe same outages starting in the hour before the first ceilings (the leases' last renewal window, "
				+ "where they rotate)\n\n" + OutageSurvival.table(survival.fractions, names, lostNearCeiling);
	}

}
