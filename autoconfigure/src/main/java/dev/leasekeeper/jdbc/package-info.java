/**
 * The HikariCP refresher: a delegating {@link javax.sql.DataSource} over the pool of the
 * current database credential, rebuilt when the credential is replaced.
 */
@NullMarked
package dev.leasekeeper.jdbc;

import org.jspecify.annotations.NullMarked;
