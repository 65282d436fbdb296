/**
 * Certificates are leases too: Vault PKI certificates issued and re-issued by the engine
 * and hot-swapped into Spring Boot SSL bundles.
 */
@NullMarked
package dev.leasekeeper.tls;

import org.jspecify.annotations.NullMarked;
