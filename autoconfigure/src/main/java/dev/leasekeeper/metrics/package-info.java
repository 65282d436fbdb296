/**
 * Micrometer meters about the margin each lease has left.
 */
@NullMarked
package dev.leasekeeper.metrics;

import org.jspecify.annotations.NullMarked;
