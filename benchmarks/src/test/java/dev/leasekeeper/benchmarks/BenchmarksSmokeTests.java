package dev.leasekeeper.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each benchmark in its smoke mode: it runs, and it prints and writes its table. Nothing
 * here judges a figure: the benchmarks are measured with their documented commands.
 */
class BenchmarksSmokeTests {

	@ParameterizedTest
	@CsvSource({ "storm, Requests per lease-hour", "token, Acquisitions after the token rotation",
			"outage, Outage (fraction of TTL)", "overhead, Renewals per second", "rotation, Failed queries",
			"fleet, Members" })
	void runsAndWritesItsTable(String benchmark, String header) throws Exception {
		Path table = Path.of("target", "smoke", benchmark + ".md");
		Files.deleteIfExists(table);
		Benchmarks.main(new String[] { benchmark, "--smoke" });
		String text = Files.readString(table);
		assertThat(text).contains("| " + header);
		assertThat(text.lines()
			.filter((line) -> line.startsWith("| (") || line.startsWith("| 0.") || line.startsWith("| Leasekeeper")
					|| line.startsWith("| Spring Vault") || line.matches("\\| \\d+ \\| (group|instance) .*")))
			.hasSizeGreaterThanOrEqualTo(2);
	}

}
