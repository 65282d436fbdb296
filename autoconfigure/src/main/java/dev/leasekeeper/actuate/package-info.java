/**
 * The {@code /actuator/leases} endpoint and the {@code leasekeeper} health indicator.
 */
@NullMarked
package dev.leasekeeper.actuate;

import org.jspecify.annotations.NullMarked;
