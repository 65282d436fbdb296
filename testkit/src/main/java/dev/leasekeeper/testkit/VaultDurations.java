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

	private static final String GO_UNIT = "(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|ms|s|m|h)";

	private static final Pattern GO_DURATION = Pattern.compile("[-+]?(?:" + GO_UNIT + ")+");

	private static final Pattern GO_PART = Pattern.compile(GO_UNIT);

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
	 * Read a duration field as Vault's {@code parseutil.ParseDurationSecond} does: a
	 * number or a string of digits is seconds; a string ending in {@code d} is whole
	 * days; anything else is a Go duration ({@code "1.5h"}, {@code "1h30m"},
	 * {@code "300ms"}); the result is truncated to whole seconds.
	 * @throws VaultError 400 for a negative value or text that is no duration
	 */
	static @Nullable Duration parse(String field, @Nullable Object value) {
		if (value == null || "".equals(value)) {
			return null;
		}
		if (value instanceof Number number) {
			if (number.doubleValue() < 0) {
				throw negative(number.longValue());
			}
			return Duration.ofSeconds(number.longValue());
		}
		if (value instanceof String text) {
			String trimmed = text.trim();
			if (trimmed.matches("-?\\d+")) {
				long seconds = Long.parseLong(trimmed);
				if (seconds < 0) {
					throw negative(seconds);
				}
				return Duration.ofSeconds(seconds);
			}
			if (trimmed.matches("-?\\d+d")) {
				long days = Long.parseLong(trimmed.substring(0, trimmed.length() - 1));
				if (days < 0) {
					throw negative(days * 86400);
				}
				return Duration.ofDays(days);
			}
			Double seconds = goDuration(trimmed);
			if (seconds != null) {
				if (seconds < 0) {
					throw negative(seconds.longValue());
				}
				return Duration.ofSeconds(seconds.longValue());
			}
		}
		throw VaultError.badRequest("Field validation failed: error converting input " + value + " for field \"" + field
				+ "\": time: invalid duration \"" + value + "\"");
	}

	private static VaultError negative(long seconds) {
		return VaultError.badRequest("cannot provide negative value '" + seconds + "'");
	}

	/** Go's {@code time.ParseDuration}, in seconds; {@code null} if it is no duration. */
	private static @Nullable Double goDuration(String text) {
		Matcher whole = GO_DURATION.matcher(text);
		if (!whole.matches()) {
			return null;
		}
		double sign = text.startsWith("-") ? -1 : 1;
		double seconds = 0;
		Matcher part = GO_PART.matcher(text);
		while (part.find()) {
			double amount = Double.parseDouble(part.group(1));
			seconds += amount * switch (part.group(2)) {
				case "h" -> 3600;
				case "m" -> 60;
				case "s" -> 1;
				case "ms" -> 1e-3;
				case "us", "\u00b5s" -> 1e-6;
				default -> 1e-9;
			};
		}
		return sign * seconds;
	}

}
