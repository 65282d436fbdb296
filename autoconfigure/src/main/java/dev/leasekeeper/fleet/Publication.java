package dev.leasekeeper.fleet;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseSourceException;

/**
 * What a group's leader publishes in its KV entry: the shared grant (lease id, credential
 * fields, TTL, expiry), the group's generation of it, the group token it was obtained
 * with, and when the leader acts on it next. Instants are wall-clock instants (every
 * instance reads them with its own clock); {@link #toString()} shows neither the data's
 * values nor the token.
 *
 * @param leaseId the shared lease's id
 * @param data the credential fields
 * @param ttl the TTL granted at the last renewal or acquisition
 * @param expireAt when the grant expires
 * @param refreshAt when the leader renews or replaces it next: a publication still
 * unchanged well after it is overdue (the leader is gone)
 * @param generation the group's generation of the grant: one more for each new lease
 * @param token the group token, or {@code null}
 * @param leader the id of the instance that published it
 * @param version the KV version this publication was read as, 0 before it is written
 * @author Leasekeeper
 * @since 0.2.0
 */
public record Publication(String leaseId, Map<String, Object> data, Duration ttl, Instant expireAt, Instant refreshAt,
		long generation, @Nullable String token, String leader, int version) {

	/**
	 * Create a publication, copying {@code data}.
	 */
	public Publication {
		data = Map.copyOf(data);
	}

	/**
	 * Return whether the leader is late: {@code grace} past the instant it should have
	 * published again.
	 * @param now the present, by the wall clock
	 * @param grace how late a leader may be
	 * @return whether it is overdue
	 */
	public boolean isOverdue(Instant now, Duration grace) {
		return now.isAfter(this.refreshAt.plus(grace));
	}

	/**
	 * Return this publication as it was read at a KV version.
	 * @param version the version
	 * @return the publication
	 */
	Publication atVersion(int version) {
		return new Publication(this.leaseId, this.data, this.ttl, this.expireAt, this.refreshAt, this.generation,
				this.token, this.leader, version);
	}

	/**
	 * Return the fields of the KV entry.
	 * @return the entry's data
	 */
	Map<String, Object> toEntry() {
		Map<String, Object> entry = new LinkedHashMap<>();
		entry.put("lease_id", this.leaseId);
		entry.put("data", this.data);
		entry.put("ttl", this.ttl.toSeconds());
		entry.put("expire_time", this.expireAt.toString());
		entry.put("refresh_time", this.refreshAt.toString());
		entry.put("generation", this.generation);
		if (this.token != null) {
			entry.put("token", this.token);
		}
		entry.put("leader", this.leader);
		return entry;
	}

	/**
	 * Read a publication from the fields of a KV entry.
	 * @param entry the entry's data
	 * @param version its KV version
	 * @param what what was being done, for the failure's message
	 * @return the publication
	 * @throws LeaseSourceException a transient {@code malformed-publication} failure when
	 * a field is missing or unreadable
	 */
	static Publication fromEntry(Map<String, Object> entry, int version, String what) throws LeaseSourceException {
		try {
			Object data = entry.get("data");
			Map<String, Object> fields = new LinkedHashMap<>();
			if (data instanceof Map<?, ?> map) {
				map.forEach((key, value) -> {
					if (value != null) {
						fields.put(String.valueOf(key), value);
					}
				});
			}
			String leaseId = (String) entry.get("lease_id");
			Number ttl = (Number) entry.get("ttl");
			Number generation = (Number) entry.get("generation");
			if (leaseId == null || ttl == null || generation == null || fields.isEmpty()) {
				throw new IllegalArgumentException("a field is missing");
			}
			Object token = entry.get("token");
			Object leader = entry.get("leader");
			return new Publication(leaseId, fields, Duration.ofSeconds(ttl.longValue()),
					Instant.parse((String) entry.get("expire_time")), Instant.parse((String) entry.get("refresh_time")),
					generation.longValue(), (token instanceof String text) ? text : null,
					(leader instanceof String text) ? text : "", version);
		}
		catch (ClassCastException | IllegalArgumentException | NullPointerException | DateTimeParseException ex) {
			// never the entry itself: it holds the credential
			throw LeaseSourceException.transientFailure("malformed-publication",
					what + ": the published entry is not a Leasekeeper grant (" + ex.getClass().getSimpleName() + ")",
					null);
		}
	}

	@Override
	public String toString() {
		return "Publication[leaseId=" + this.leaseId + ", data=" + this.data.keySet() + ", ttl=" + this.ttl
				+ ", expireAt=" + this.expireAt + ", refreshAt=" + this.refreshAt + ", generation=" + this.generation
				+ ", token=" + ((this.token != null) ? "****" : "none") + ", leader=" + this.leader + ", version="
				+ this.version + "]";
	}

}
