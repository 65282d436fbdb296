package dev.leasekeeper.autoconfigure;

import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.leasekeeper.core.RenewalPolicy;

import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE's completion for {@code leasekeeper.*}: every property described, and the
 * defaults it shows are the engine's.
 */
class ConfigurationMetadataTests {

	@Test
	@SuppressWarnings("unchecked")
	void everyPropertyIsDescribedAndTheDefaultsShownAreTheEngines() throws Exception {
		Map<String, Object> metadata;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			metadata = JsonMapper.builder().build().readValue(in, Map.class);
		}
		List<Map<String, Object>> properties = (List<Map<String, Object>>) metadata.get("properties");
		assertThat(properties).isNotEmpty()
			.allSatisfy((property) -> assertThat((String) property.get("description")).as("%s", property.get("name"))
				.isNotBlank());
		RenewalPolicy engine = RenewalPolicy.defaults();
		assertThat(number(properties, "leasekeeper.defaults.renew-at")).isEqualTo(engine.renewAt());
		assertThat(number(properties, "leasekeeper.defaults.first-renewal-spread"))
			.isEqualTo(engine.firstRenewalSpread());
		assertThat(number(properties, "leasekeeper.defaults.jitter")).isEqualTo(engine.jitter());
		assertThat(duration(properties, "leasekeeper.defaults.expiry-buffer")).isEqualTo(engine.expiryBuffer());
		assertThat(duration(properties, "leasekeeper.defaults.attempt-timeout")).isEqualTo(engine.attemptTimeout());
		assertThat(duration(properties, "leasekeeper.defaults.retry.initial-interval"))
			.isEqualTo(engine.retryInitialInterval());
		assertThat(number(properties, "leasekeeper.defaults.retry.multiplier")).isEqualTo(engine.retryMultiplier());
		assertThat(duration(properties, "leasekeeper.defaults.retry.max-interval"))
			.isEqualTo(engine.retryMaxInterval());
		assertThat(number(properties, "leasekeeper.defaults.retry.jitter")).isEqualTo(engine.retryJitter());
	}

	/**
	 * Return the names of the properties in the configuration metadata.
	 * @return the names, sorted
	 */
	@SuppressWarnings("unchecked")
	static Set<String> documentedProperties() throws Exception {
		Map<String, Object> metadata;
		try (InputStream in = ConfigurationMetadataTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			metadata = JsonMapper.builder().build().readValue(in, Map.class);
		}
		Set<String> names = new TreeSet<>();
		((List<Map<String, Object>>) metadata.get("properties"))
			.forEach((property) -> names.add((String) property.get("name")));
		return names;
	}

	private static Object find(List<Map<String, Object>> properties, String name) {
		return properties.stream()
			.filter((property) -> name.equals(property.get("name")))
			.findFirst()
			.orElseThrow(() -> new AssertionError(name + " is not in the metadata"))
			.get("defaultValue");
	}

	private static double number(List<Map<String, Object>> properties, String name) {
		return ((Number) find(properties, name)).doubleValue();
	}

	private static Duration duration(List<Map<String, Object>> properties, String name) {
		return DurationStyle.detectAndParse((String) find(properties, name));
	}

}
