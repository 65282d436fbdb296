/**
 * The renewal engine: one clock per lease, driven by an injected scheduler. Imports
 * nothing from Spring Boot, Spring Vault, JDBC or Micrometer, so that it can be driven in
 * virtual time.
 */
@NullMarked
package dev.leasekeeper.core;

import org.jspecify.annotations.NullMarked;
