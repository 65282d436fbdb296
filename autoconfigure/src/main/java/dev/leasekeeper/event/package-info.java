/**
 * The events Leasekeeper publishes to the application context.
 */
@NullMarked
package dev.leasekeeper.event;

import org.jspecify.annotations.NullMarked;
