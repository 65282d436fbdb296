/**
 * {@link dev.leasekeeper.core.LeaseSource} implementations on Spring Vault: secret
 * leases, the login token, and the classification of Vault's answers.
 */
@NullMarked
package dev.leasekeeper.vault;

import org.jspecify.annotations.NullMarked;
