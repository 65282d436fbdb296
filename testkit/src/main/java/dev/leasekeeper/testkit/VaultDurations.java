package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Durations as Vault reads and prints them.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class VaultDurations {

	private static final Pattern PART = Pattern.compile("(\\d+)(h|m|s)");

	private VaultDurations() {
	}

	/**
	 * Print a duration as Vault does in its warnings: {@code 1h}, {@code 10m},
	 * {@code 59m58s}.
	 */
	public static String format(Duration duration) {
		long seconds = duration.toSeconds();
		StringBuilder result = new StringBuilder();
		if (seconds >= 3600) {
			result.append(seconds / 3600).append('h');
		}
		if (seconds % 3600 >= 60) {
			result.append(seconds % 3600 / 60).append('m');
		}
		if (seconds % 60 > 0 || result.length() == 0) {
			result.append(seconds % 60).append('s');
		}
		return result.toString();
	}

	/**
	 * Read a duration field: an integer number of seconds, or a string such as
	 * {@code "90"}, {@code "1h"} or {@code "1h30m"}; truncated to whole seconds.
	 */
	static @Nullable Duration parse(String field, @Nullable Object value) {
		if (value == null || "".equals(value)) {
			return null;
		}
		if (value instanceof Number number) {
			if (number.doubleValue() < 0) {
				throw VaultError.badRequest("invalid " + field + ": must not be negative");
			}
			return Duration.ofSeconds(number.longValue());
		}
		if (value instanceof String text) {
			String trimmed = text.trim();
			if (trimmed.matches("\\d+")) {
				return Duration.ofSeconds(Long.parseLong(trimmed));
			}
			Matcher matcher = PART.matcher(trimmed);
			long seconds = 0;
			int end = 0;
			while (matcher.find() && matcher.start() == end) {
				long amount = Long.parseLong(matcher.group(1));
				seconds += switch (matcher.group(2)) {
					case "h" -> amount * 3600;
					case "m" -> amount * 60;
					default -> amount;
				};
				end = matcher.end();
			}
			if (end == trimmed.length() && end > 0) {
				return Duration.ofSeconds(seconds);
			}
		}
		throw VaultError.badRequest("invalid " + field + ": '" + value + "' is not a duration");
	}

}
