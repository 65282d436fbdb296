package dev.leasekeeper.testkit;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Vault's KV secrets engine, version 2, mounted at {@code secret/}: versioned entries
 * written through {@code secret/data/<key>} with the check-and-set option, read latest or
 * by version, and their metadata (current version, versions, custom metadata) through
 * {@code secret/metadata/<key>}. The rules and texts are those of
 * hashicorp/vault-plugin-secrets-kv ({@code path_data.go}, {@code path_metadata.go}): a
 * write whose {@code options.cas} differs from the current version (0 for an entry that
 * does not exist) is refused with 400 {@code check-and-set parameter did not match the
 * current version}; a missing entry reads as 404 with no errors.
 *
 * @author Leasekeeper
 */
final class KvEngine {

	/** The mount. */
	static final String MOUNT = "secret/";

	static final String CAS_MISMATCH = "check-and-set parameter did not match the current version";

	private final Clock clock;

	private final Map<String, Entry> entries = new LinkedHashMap<>();

	KvEngine(Clock clock) {
		this.clock = clock;
	}

	/**
	 * {@code GET secret/data/<key>}: the latest version, or the one asked for.
	 */
	synchronized Map<String, Object> read(String key, @Nullable Integer version) {
		Entry entry = this.entries.get(key);
		if (entry == null || entry.versions.isEmpty()) {
			throw new VaultError(404, "");
		}
		int wanted = (version == null || version == 0) ? entry.versions.size() : version;
		if (wanted < 1 || wanted > entry.versions.size()) {
			throw new VaultError(404, "");
		}
		Version found = entry.versions.get(wanted - 1);
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("data", found.data);
		result.put("metadata", versionMetadata(entry, found));
		return result;
	}

	/**
	 * {@code POST secret/data/<key>}: a new version, if {@code cas} (when given) is the
	 * current version.
	 */
	synchronized Map<String, Object> write(String key, @Nullable Object data, @Nullable Object options) {
		if (!(data instanceof Map<?, ?> values)) {
			throw VaultError.badRequest("no data provided");
		}
		Entry entry = this.entries.get(key);
		int current = (entry != null) ? entry.versions.size() : 0;
		boolean casRequired = entry != null && entry.casRequired;
		Object cas = (options instanceof Map<?, ?> given) ? given.get("cas") : null;
		if (cas == null && casRequired) {
			throw VaultError.badRequest("check-and-set parameter required for this call");
		}
		if (cas != null) {
			if (!(cas instanceof Number number) || number.intValue() != current) {
				throw VaultError.badRequest(CAS_MISMATCH);
			}
		}
		if (entry == null) {
			entry = new Entry(now());
			this.entries.put(key, entry);
		}
		Map<String, Object> copy = new LinkedHashMap<>();
		values.forEach((name, value) -> copy.put(String.valueOf(name), value));
		Version version = new Version(entry.versions.size() + 1, copy, now());
		entry.versions.add(version);
		entry.updated = version.created;
		return versionMetadata(entry, version);
	}

	/**
	 * {@code GET secret/metadata/<key>}.
	 */
	synchronized Map<String, Object> metadata(String key) {
		Entry entry = this.entries.get(key);
		if (entry == null) {
			throw new VaultError(404, "");
		}
		Map<String, Object> versions = new LinkedHashMap<>();
		for (Version version : entry.versions) {
			Map<String, Object> one = new LinkedHashMap<>();
			one.put("created_time", version.created.toString());
			one.put("deletion_time", "");
			one.put("destroyed", false);
			versions.put(String.valueOf(version.number), one);
		}
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("cas_required", entry.casRequired);
		result.put("created_time", entry.created.toString());
		result.put("current_version", entry.versions.size());
		result.put("custom_metadata", entry.customMetadata.isEmpty() ? null : entry.customMetadata);
		result.put("delete_version_after", "0s");
		result.put("max_versions", 0);
		result.put("oldest_version", entry.versions.isEmpty() ? 0 : 1);
		result.put("updated_time", entry.updated.toString());
		result.put("versions", versions);
		return result;
	}

	/**
	 * {@code POST secret/metadata/<key>}: custom metadata (replaced whole) and
	 * {@code cas_required}; the entry is made if it does not exist.
	 */
	synchronized void writeMetadata(String key, Map<String, Object> body) {
		Entry entry = this.entries.computeIfAbsent(key, (name) -> new Entry(now()));
		if (body.get("custom_metadata") instanceof Map<?, ?> custom) {
			Map<String, String> copy = new LinkedHashMap<>();
			custom.forEach((name, value) -> {
				if (!(value instanceof String)) {
					throw VaultError.badRequest("custom_metadata values must be strings");
				}
				copy.put(String.valueOf(name), (String) value);
			});
			entry.customMetadata = copy;
		}
		if (body.get("cas_required") instanceof Boolean required) {
			entry.casRequired = required;
		}
		entry.updated = now();
	}

	/**
	 * {@code DELETE secret/metadata/<key>}: the entry and every version.
	 */
	synchronized void deleteMetadata(String key) {
		this.entries.remove(key);
	}

	/** The entry's current version, 0 when it does not exist. */
	synchronized int currentVersion(String key) {
		Entry entry = this.entries.get(key);
		return (entry != null) ? entry.versions.size() : 0;
	}

	private static Map<String, Object> versionMetadata(Entry entry, Version version) {
		Map<String, Object> metadata = new LinkedHashMap<>();
		metadata.put("created_time", version.created.toString());
		metadata.put("custom_metadata", entry.customMetadata.isEmpty() ? null : entry.customMetadata);
		metadata.put("deletion_time", "");
		metadata.put("destroyed", false);
		metadata.put("version", version.number);
		return metadata;
	}

	private Instant now() {
		return this.clock.instant();
	}

	private static final class Entry {

		final Instant created;

		Instant updated;

		final List<Version> versions = new ArrayList<>();

		Map<String, String> customMetadata = Map.of();

		boolean casRequired;

		Entry(Instant created) {
			this.created = created;
			this.updated = created;
		}

	}

	private record Version(int number, Map<String, Object> data, Instant created) {
	}

}
