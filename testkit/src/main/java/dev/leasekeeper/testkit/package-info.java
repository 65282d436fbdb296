/**
 * A Vault to test against: an in-process HTTP server that answers as Vault does for
 * tokens, AppRole, the database secrets engine and {@code sys/leases}, with faults on
 * demand and a request journal.
 */
@NullMarked
package dev.leasekeeper.testkit;

import org.jspecify.annotations.NullMarked;
