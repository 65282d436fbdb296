package dev.leasekeeper.testkit;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One request the simulator answered (or refused).
 *
 * @param at when it arrived, on the simulator's clock
 * @param method the HTTP method
 * @param path the path after {@code /v1/}, such as {@code sys/leases/renew}
 * @param accessor the accessor of the token it carried, or {@code null} if it carried
 * none or an unknown one
 * @param leaseId the {@code lease_id} of its body, or {@code null}
 * @param status the status answered
 * @author Leasekeeper
 * @since 0.1.0
 */
public record JournalEntry(Instant at, String method, String path, @Nullable String accessor, @Nullable String leaseId,
		int status) {

}
