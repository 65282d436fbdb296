package dev.leasekeeper.testkit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Vault ACL policy: path rules with capabilities, written in HCL ({@code path
 * "database/creds/orders" { capabilities = ["read"] }}) or in its JSON form. A rule's
 * path is exact, ends with {@code *} (a prefix) or holds {@code +} (one segment). Vault
 * merges the rules of a token's policies and answers with the most specific rule that
 * matches: an exact path before a glob, the longer glob before the shorter, and
 * {@code deny} wins over everything.
 */
final class Policy {

	static final Set<String> CAPABILITIES = Set.of("create", "read", "update", "patch", "delete", "list", "sudo",
			"deny");

	/** Vault's built-in {@code default} policy ({@code vault/policy_store.go}). */
	static final String DEFAULT = """
			path "auth/token/lookup-self" { capabilities = ["read"] }
			path "auth/token/renew-self" { capabilities = ["update"] }
			path "auth/token/revoke-self" { capabilities = ["update"] }
			path "sys/capabilities-self" { capabilities = ["update"] }
			path "identity/entity/id/{{identity.entity.id}}" { capabilities = ["read"] }
			path "identity/entity/name/{{identity.entity.name}}" { capabilities = ["read"] }
			path "sys/internal/ui/resultant-acl" { capabilities = ["read"] }
			path "sys/renew" { capabilities = ["update"] }
			path "sys/leases/renew" { capabilities = ["update"] }
			path "sys/leases/lookup" { capabilities = ["update"] }
			path "cubbyhole/*" { capabilities = ["create", "read", "update", "delete", "list"] }
			path "sys/wrapping/wrap" { capabilities = ["update"] }
			path "sys/wrapping/lookup" { capabilities = ["update"] }
			path "sys/wrapping/unwrap" { capabilities = ["update"] }
			path "sys/tools/hash" { capabilities = ["update"] }
			path "sys/tools/hash/*" { capabilities = ["update"] }
			path "sys/control-group/request" { capabilities = ["update"] }
			path "sys/mfa/challenge" { capabilities = ["update"] }
			""";

	private static final Pattern HCL_RULE = Pattern
		.compile("path\\s+\"([^\"]*)\"\\s*\\{\\s*capabilities\\s*=\\s*\\[([^\\]]*)\\]\\s*}");

	private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");

	private static final JsonMapper json = JsonMapper.builder().build();

	private final String name;

	private final String text;

	private final Map<String, Set<String>> rules;

	private Policy(String name, String text, Map<String, Set<String>> rules) {
		this.name = name;
		this.text = text;
		this.rules = rules;
	}

	/**
	 * Read a policy as {@code sys/policies/acl/<name>} takes it.
	 * @throws VaultError 400 when the text is neither the HCL nor the JSON form
	 */
	static Policy parse(String name, String text) {
		String withoutComments = text.replaceAll("(?m)^\\s*#.*$", "").trim();
		Map<String, Set<String>> rules = withoutComments.startsWith("{") ? fromJson(withoutComments)
				: fromHcl(withoutComments);
		return new Policy(name, text, rules);
	}

	private static Map<String, Set<String>> fromHcl(String text) {
		Map<String, Set<String>> rules = new LinkedHashMap<>();
		Matcher matcher = HCL_RULE.matcher(text);
		int end = 0;
		while (matcher.find()) {
			if (!text.substring(end, matcher.start()).isBlank()) {
				break;
			}
			List<String> capabilities = new ArrayList<>();
			Matcher quoted = QUOTED.matcher(matcher.group(2));
			while (quoted.find()) {
				capabilities.add(quoted.group(1));
			}
			add(rules, matcher.group(1), capabilities);
			end = matcher.end();
		}
		if (!text.substring(end).isBlank()) {
			throw VaultError
				.badRequest("failed to parse policy: unsupported syntax at: " + abbreviate(text.substring(end).trim()));
		}
		return rules;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Set<String>> fromJson(String text) {
		Map<String, Set<String>> rules = new LinkedHashMap<>();
		try {
			Map<String, Object> document = json.readValue(text, Map.class);
			Object paths = document.get("path");
			if (!(paths instanceof Map<?, ?> byPath)) {
				throw VaultError.badRequest("failed to parse policy: a JSON policy needs a \"path\" object");
			}
			byPath.forEach((path, rule) -> {
				Object capabilities = (rule instanceof Map<?, ?> map) ? map.get("capabilities") : null;
				if (!(capabilities instanceof List<?> list)) {
					throw VaultError.badRequest("failed to parse policy: path \"" + path + "\" needs capabilities");
				}
				add(rules, String.valueOf(path), list.stream().map(String::valueOf).toList());
			});
			return rules;
		}
		catch (JacksonException ex) {
			throw VaultError.badRequest("failed to parse policy: " + ex.getOriginalMessage());
		}
	}

	private static void add(Map<String, Set<String>> rules, String path, Collection<String> capabilities) {
		for (String capability : capabilities) {
			if (!CAPABILITIES.contains(capability)) {
				throw VaultError.badRequest(
						"failed to parse policy: path \"" + path + "\": invalid capability \"" + capability + "\"");
			}
		}
		rules.computeIfAbsent(path, (key) -> new LinkedHashSet<>()).addAll(capabilities);
	}

	private static String abbreviate(String text) {
		return (text.length() > 40) ? text.substring(0, 40) + "..." : text;
	}

	String name() {
		return this.name;
	}

	String text() {
		return this.text;
	}

	/**
	 * Whether the union of the given policies allows a capability on a path, as Vault's
	 * ACL decides it (the {@code root} policy allows everything).
	 */
	static boolean allows(Collection<Policy> policies, String path, String capability) {
		Map<String, Set<String>> merged = new LinkedHashMap<>();
		for (Policy policy : policies) {
			policy.rules.forEach((rule, capabilities) -> merged.computeIfAbsent(rule, (key) -> new LinkedHashSet<>())
				.addAll(capabilities));
		}
		Set<String> capabilities = merged.get(path);
		if (capabilities == null) {
			String best = null;
			for (String rule : merged.keySet()) {
				if (matches(rule, path) && (best == null || moreSpecific(rule, best))) {
					best = rule;
				}
			}
			capabilities = (best != null) ? merged.get(best) : Set.of();
		}
		return !capabilities.contains("deny") && capabilities.contains(capability);
	}

	private static boolean matches(String rule, String path) {
		boolean prefix = rule.endsWith("*");
		String[] ruleParts = (prefix ? rule.substring(0, rule.length() - 1) : rule).split("/", -1);
		String[] pathParts = path.split("/", -1);
		if (!prefix && ruleParts.length != pathParts.length) {
			return false;
		}
		if (prefix && pathParts.length < ruleParts.length) {
			return false;
		}
		for (int i = 0; i < ruleParts.length; i++) {
			boolean last = i == ruleParts.length - 1;
			if (ruleParts[i].equals("+")) {
				continue;
			}
			if (prefix && last ? !pathParts[i].startsWith(ruleParts[i]) : !pathParts[i].equals(ruleParts[i])) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Vault's priority between two matching globs, simplified: fewer {@code +} segments,
	 * then the longer rule, then a rule that is not a prefix.
	 */
	private static boolean moreSpecific(String candidate, String best) {
		long candidatePluses = candidate.chars().filter((c) -> c == '+').count();
		long bestPluses = best.chars().filter((c) -> c == '+').count();
		if (candidatePluses != bestPluses) {
			return candidatePluses < bestPluses;
		}
		if (candidate.length() != best.length()) {
			return candidate.length() > best.length();
		}
		return !candidate.endsWith("*") && best.endsWith("*");
	}

	/**
	 * The policy README's "Running the sample against a real Vault" declares, for the
	 * given database roles and PKI roles.
	 */
	static String application(Collection<String> databaseRoles, Collection<String> pkiRoles) {
		return application(databaseRoles, List.of(), pkiRoles);
	}

	/**
	 * The policy for the given database roles, static roles and PKI roles.
	 */
	static String application(Collection<String> databaseRoles, Collection<String> staticRoles,
			Collection<String> pkiRoles) {
		StringBuilder text = new StringBuilder();
		databaseRoles.stream()
			.sorted()
			.forEach((role) -> text.append("path \"database/creds/")
				.append(role)
				.append("\" { capabilities = [\"read\"] }\n"));
		staticRoles.stream()
			.sorted()
			.forEach((role) -> text.append("path \"database/static-creds/")
				.append(role)
				.append("\" { capabilities = [\"read\"] }\n"));
		pkiRoles.stream()
			.sorted()
			.forEach((role) -> text.append("path \"pki/issue/")
				.append(role)
				.append("\" { capabilities = [\"update\"] }\n"));
		if (!pkiRoles.isEmpty()) {
			text.append("path \"pki/revoke\" { capabilities = [\"update\"] }\n");
		}
		text.append("""
				path "sys/leases/renew" { capabilities = ["update"] }
				path "sys/leases/revoke" { capabilities = ["update"] }
				path "auth/token/renew-self" { capabilities = ["update"] }
				path "auth/token/revoke-self" { capabilities = ["update"] }
				path "auth/token/lookup-self" { capabilities = ["read"] }
				""");
		return text.toString();
	}

}
