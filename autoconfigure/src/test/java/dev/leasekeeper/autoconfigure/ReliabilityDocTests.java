package dev.leasekeeper.autoconfigure;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/RELIABILITY.md} states how many hostile cases are tried: the numbers must
 * be the tests' own. (The fault matrix is kept in sync by {@link FaultMatrixTests}.)
 */
class ReliabilityDocTests {

	private static final Path DOC = Path.of("..", "docs", "RELIABILITY.md");

	@Test
	void theCountOfHostilePropertyValuesIsTheTests() throws Exception {
		assertThat(count("properties")).isEqualTo(HostilePropertyTests.cases().size());
	}

	@Test
	void theCountOfHostileVaultAnswersIsTheTests() throws Exception {
		Method test = Arrays.stream(Class.forName("dev.leasekeeper.vault.HostileVaultAnswerTests").getDeclaredMethods())
			.filter((method) -> method.isAnnotationPresent(CsvSource.class))
			.findFirst()
			.orElseThrow();
		assertThat(count("vault")).isEqualTo(test.getAnnotation(CsvSource.class).value().length);
	}

	private static int count(String name) throws Exception {
		Matcher matcher = Pattern.compile("<!-- count:" + name + " -->(\\d+)<!-- /count -->")
			.matcher(Files.readString(DOC));
		assertThat(matcher.find()).as("count:%s in %s", name, DOC).isTrue();
		return Integer.parseInt(matcher.group(1));
	}

}
