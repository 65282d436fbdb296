package dev.leasekeeper.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a successful renewal changed.
 *
 * @param lease the lease after the renewal
 * @param previousExpiry the effective expiry before the renewal
 * @param newExpiry the effective expiry after it
 * @param grantedTtl the TTL the store granted
 * @param remainingAtAttempt how much of the previous window was left when the successful
 * attempt was sent
 * @param attempts how many attempts it took, 1 when the first succeeded
 * @param capped whether the grant showed the ceiling
 * @author Leasekeeper
 * @since 0.1.0
 */
public record LeaseRenewal(LeaseSnapshot lease, @Nullable Instant previousExpiry, @Nullable Instant newExpiry,
		Duration grantedTtl, Duration remainingAtAttempt, int attempts, boolean capped) {

}
