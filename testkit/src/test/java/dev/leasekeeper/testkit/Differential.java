package dev.leasekeeper.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where two Vaults answered the same request differently. Statuses, errors and warnings
 * must be equal; in a JSON body every key must be there on both sides with a value of the
 * same kind; durations (within a second), booleans, policies and a few names must be
 * equal too. Ids, tokens, times and generated names may differ.
 */
final class Differential {

	/** Numbers that are durations in seconds: equal within a second of drift. */
	private static final Set<String> DURATIONS = Set.of("lease_duration", "ttl", "creation_ttl", "explicit_max_ttl",
			"period", "num_uses");

	/** Strings that must be equal. */
	private static final Set<String> NAMES = Set.of("mount_type", "token_type", "display_name", "type", "path", "name",
			"policy", "role_name");

	/** Lists of strings that must be equal. */
	private static final Set<String> LISTS = Set.of("policies", "token_policies", "errors", "warnings",
			"identity_policies");

	/** Keys whose values say nothing of Vault's rules. */
	private static final Set<String> IGNORED = Set.of("request_id", "version", "cluster_name", "cluster_id",
			"server_time_utc", "replication_performance_mode", "replication_dr_mode", "echo_duration_ms",
			"clock_skew_ms", "enterprise", "license");

	private Differential() {
	}

	/** A difference: the request, where in the answer, and what each side said. */
	record Difference(String request, String where, String primary, String reference) {

		@Override
		public String toString() {
			return this.request + " " + this.where + ": " + this.primary + " | reference: " + this.reference;
		}

	}

	static List<Difference> compare(String request, VaultTarget.Response primary, VaultTarget.Response reference) {
		List<Difference> differences = new ArrayList<>();
		if (primary.status() != reference.status()) {
			differences.add(new Difference(request, "status", String.valueOf(primary.status()),
					String.valueOf(reference.status())));
		}
		if (primary.body().isEmpty() || reference.body().isEmpty()) {
			if (primary.body().isEmpty() != reference.body().isEmpty()) {
				differences.add(new Difference(request, "body", primary.body().isEmpty() ? "empty" : "present",
						reference.body().isEmpty() ? "empty" : "present"));
			}
			return differences;
		}
		compare(request, "", primary.json(), reference.json(), differences);
		return differences;
	}

	private static void compare(String request, String where, Map<?, ?> primary, Map<?, ?> reference,
			List<Difference> differences) {
		Set<Object> keys = new TreeSet<>((a, b) -> String.valueOf(a).compareTo(String.valueOf(b)));
		keys.addAll(primary.keySet());
		keys.addAll(reference.keySet());
		for (Object key : keys) {
			String name = String.valueOf(key);
			String at = where.isEmpty() ? name : where + "." + name;
			if (IGNORED.contains(name)) {
				continue;
			}
			if (!primary.containsKey(key) || !reference.containsKey(key)) {
				differences.add(new Difference(request, at, primary.containsKey(key) ? "present" : "missing",
						reference.containsKey(key) ? "present" : "missing"));
				continue;
			}
			compareValue(request, at, name, primary.get(key), reference.get(key), differences);
		}
	}

	private static void compareValue(String request, String at, String name, Object primary, Object reference,
			List<Difference> differences) {
		if (!kind(primary).equals(kind(reference))) {
			differences
				.add(new Difference(request, at, kind(primary) + " " + primary, kind(reference) + " " + reference));
			return;
		}
		boolean differ = false;
		if (primary instanceof Map<?, ?> map) {
			compare(request, at, map, (Map<?, ?>) reference, differences);
		}
		else if (primary instanceof Boolean) {
			differ = !primary.equals(reference);
		}
		else if (primary instanceof Number number && DURATIONS.contains(name)) {
			differ = Math.abs(number.longValue() - ((Number) reference).longValue()) > 1;
		}
		else if (primary instanceof String && NAMES.contains(name)) {
			differ = !primary.equals(reference);
		}
		else if (primary instanceof List<?> && LISTS.contains(name)) {
			differ = !Objects.equals(primary, reference);
		}
		if (differ) {
			differences.add(new Difference(request, at, String.valueOf(primary), String.valueOf(reference)));
		}
	}

	private static String kind(Object value) {
		if (value == null) {
			return "null";
		}
		if (value instanceof Map) {
			return "object";
		}
		if (value instanceof List) {
			return "array";
		}
		if (value instanceof Number) {
			return "number";
		}
		if (value instanceof Boolean) {
			return "boolean";
		}
		return "string";
	}

}
