/**
 * Fleet scope: one grant for a whole group of instances ({@code sharing: group}). One
 * leader per group and lease, elected by Spring Integration's
 * {@code LockRegistryLeaderInitiator}, obtains, renews and rotates the grant under a
 * group token and publishes it through Vault's KV version 2 engine with check-and-set;
 * every instance reads it.
 */
@NullMarked
package dev.leasekeeper.fleet;

import org.jspecify.annotations.NullMarked;
