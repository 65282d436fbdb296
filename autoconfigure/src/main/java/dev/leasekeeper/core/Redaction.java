package dev.leasekeeper.core;

import java.util.Map;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * Keeps secret values out of strings.
 *
 * @author Leasekeeper
 */
final class Redaction {

	private Redaction() {
	}

	/**
	 * Return the keys of {@code data} with every value masked.
	 * @param data the credential fields
	 * @return a string such as {@code {password=******, username=******}}
	 */
	static String keysOnly(Map<String, ?> data) {
		StringBuilder result = new StringBuilder("{");
		for (String key : new TreeSet<>(data.keySet())) {
			if (result.length() > 1) {
				result.append(", ");
			}
			result.append(key).append("=******");
		}
		return result.append('}').toString();
	}

	/**
	 * Mask a lease id for logs and the actuator: keep its path, show only the last four
	 * characters of its random part.
	 * @param leaseId the lease id, may be {@code null}
	 * @return the masked id, such as {@code database/creds/orders/****x7Qa}
	 */
	static String maskLeaseId(@Nullable String leaseId) {
		if (leaseId == null || leaseId.isEmpty()) {
			return "-";
		}
		int slash = leaseId.lastIndexOf('/');
		String path = leaseId.substring(0, slash + 1);
		String tail = leaseId.substring(slash + 1);
		return path + "****" + ((tail.length() > 8) ? tail.substring(tail.length() - 4) : "");
	}

}
