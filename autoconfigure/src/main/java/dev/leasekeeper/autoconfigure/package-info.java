/**
 * Auto-configuration for Leasekeeper: properties, one renewer bean per declared lease,
 * the Vault token, events and shutdown.
 */
@NullMarked
package dev.leasekeeper.autoconfigure;

import org.jspecify.annotations.NullMarked;
