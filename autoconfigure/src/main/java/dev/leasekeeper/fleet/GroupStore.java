package dev.leasekeeper.fleet;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpEntity;
import org.springframework.http.HttpMethod;
import org.springframework.util.Assert;
import org.springframework.vault.core.VaultOperations;
import org.springframework.vault.support.VaultResponse;
import org.springframework.web.client.HttpClientErrorException;

import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.vault.VaultFailures;

/**
 * A group's KV version 2 entry for one lease, read and written with the instance's own
 * Vault token: the entry at {@code <mount>/data/<key>} holds the {@link Publication};
 * each write carries {@code options.cas} with the version the writer last read, so that a
 * leader that lost its lock without knowing it can never overwrite a newer grant;
 * {@code <mount>/metadata/<key>} carries the generation in its custom metadata.
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
public final class GroupStore {

	/** Vault's answer to a write whose check-and-set version is not the current one. */
	static final String CAS_MISMATCH = "check-and-set parameter did not match the current version";

	private final VaultOperations vault;

	private final String dataPath;

	private final String metadataPath;

	/**
	 * Create a store.
	 * @param vault Vault, with the instance's session token
	 * @param dataPath the entry's data path, such as
	 * {@code secret/data/leasekeeper/orders/orders-db}
	 */
	public GroupStore(VaultOperations vault, String dataPath) {
		Assert.notNull(vault, "'vault' must not be null");
		String[] parts = split(dataPath);
		Assert.notNull(parts, () -> "'dataPath' must be <mount>/data/<key>, but was " + dataPath);
		this.vault = vault;
		this.dataPath = dataPath;
		this.metadataPath = parts[0] + "/metadata/" + parts[1];
	}

	/**
	 * Split a KV version 2 data path into its mount and key.
	 * @param dataPath a path such as {@code secret/data/leasekeeper}
	 * @return the mount and the key, or {@code null} when the path has no {@code data}
	 * segment after a mount
	 */
	public static String @Nullable [] split(@Nullable String dataPath) {
		if (dataPath == null) {
			return null;
		}
		String path = dataPath.strip().replaceAll("^/+|/+$", "");
		int data = path.indexOf("/data/");
		if (data <= 0 || data + "/data/".length() >= path.length()) {
			return null;
		}
		return new String[] { path.substring(0, data), path.substring(data + "/data/".length()) };
	}

	/**
	 * Return the entry's data path.
	 * @return the path
	 */
	public String path() {
		return this.dataPath;
	}

	/**
	 * Read the latest publication.
	 * @return it, or {@code null} when nothing was published yet
	 * @throws LeaseSourceException if Vault could not be read, or the entry is not a
	 * publication
	 */
	public @Nullable Publication read() throws LeaseSourceException {
		String what = "read " + this.dataPath;
		VaultResponse response = VaultFailures.call(what, () -> this.vault.doWithSession((rest) -> {
			try {
				return rest.getForObject(this.dataPath, VaultResponse.class);
			}
			catch (HttpClientErrorException.NotFound ex) {
				return null;
			}
		}));
		Map<String, Object> body = (response != null) ? response.getData() : null;
		if (body == null || !(body.get("data") instanceof Map<?, ?> entry)) {
			return null;
		}
		int version = (body.get("metadata") instanceof Map<?, ?> metadata
				&& metadata.get("version") instanceof Number number) ? number.intValue() : 0;
		@SuppressWarnings("unchecked")
		Map<String, Object> fields = (Map<String, Object>) entry;
		return Publication.fromEntry(fields, version, what);
	}

	/**
	 * Write a publication if the entry is still at the version its writer last read.
	 * @param publication what to publish
	 * @param expectedVersion the version last read, 0 for an entry that does not exist
	 * @return the publication at its new version
	 * @throws StaleLeaderException if another leader wrote since
	 * @throws LeaseSourceException if Vault could not be written
	 */
	public Publication write(Publication publication, int expectedVersion) throws LeaseSourceException {
		String what = "publish to " + this.dataPath;
		Map<String, Object> body = Map.of("options", Map.of("cas", expectedVersion), "data", publication.toEntry());
		VaultResponse response;
		try {
			response = VaultFailures.call(what,
					() -> this.vault.doWithSession((rest) -> rest
						.exchange(this.dataPath, HttpMethod.POST, new HttpEntity<>(body), VaultResponse.class)
						.getBody()));
		}
		catch (LeaseSourceException ex) {
			if (String.valueOf(ex.getMessage()).contains(CAS_MISMATCH)) {
				throw new StaleLeaderException(what + ": another leader published since version " + expectedVersion);
			}
			throw ex;
		}
		Map<String, Object> data = (response != null) ? response.getData() : null;
		if (data == null || !(data.get("version") instanceof Number version)) {
			throw LeaseSourceException.transientFailure("malformed-response",
					what + ": Vault answered without the new version", null);
		}
		return publication.atVersion(version.intValue());
	}

	/**
	 * Put the generation into the entry's custom metadata, so that a reader can tell
	 * which grant is newer without reading the entry.
	 * @param generation the generation published
	 * @param leader the instance that published it
	 * @throws LeaseSourceException if Vault could not be written
	 */
	public void tag(long generation, String leader) throws LeaseSourceException {
		Map<String, Object> custom = new LinkedHashMap<>();
		custom.put("generation", String.valueOf(generation));
		custom.put("leader", leader);
		VaultFailures.call("tag " + this.metadataPath,
				() -> this.vault.doWithSession((rest) -> rest.exchange(this.metadataPath, HttpMethod.POST,
						new HttpEntity<>(Map.of("custom_metadata", custom)), Void.class)));
	}

	/**
	 * A write refused because another leader published since the version it expected: the
	 * writer is no longer the leader.
	 */
	public static final class StaleLeaderException extends LeaseSourceException {

		StaleLeaderException(String message) {
			super(Kind.PERMANENT, "stale-leader", message, false, null);
		}

	}

}
