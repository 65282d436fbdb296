package dev.leasekeeper.jdbc;

import java.io.Closeable;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseState;

/**
 * The application's {@link DataSource}: hands out connections of the pool built from the
 * lease's current credential, and fails at once, naming the lease, when the lease is
 * expired or lost. When the database refuses the credential (SQLState class 28) while the
 * store still vouches for it, a new one is asked for, once per pool.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class LeasedDataSource implements DataSource, Closeable {

	private static final Log logger = LogFactory.getLog(LeasedDataSource.class);

	private final String leaseName;

	private volatile @Nullable HikariDataSource pool;

	private volatile @Nullable LeaseState unavailable = LeaseState.ACQUIRING;

	private volatile Runnable onRefused = () -> {
	};

	private final AtomicReference<@Nullable HikariDataSource> refusedPool = new AtomicReference<>();

	LeasedDataSource(String leaseName) {
		this.leaseName = leaseName;
	}

	@Override
	public Connection getConnection() throws SQLException {
		LeaseState state = this.unavailable;
		HikariDataSource current = this.pool;
		if (state != null || current == null) {
			throw new SQLException("Lease '" + this.leaseName + "' is " + state
					+ ": Leasekeeper cannot vouch for its database credential", "08001");
		}
		try {
			return current.getConnection();
		}
		catch (SQLException ex) {
			HikariDataSource replacement = this.pool;
			if (replacement != null && replacement != current) {
				// the pool was swapped (and the old one closed) between reading it and
				// borrowing from it
				return replacement.getConnection();
			}
			String refusal = refusal(ex);
			if (refusal != null && this.refusedPool.getAndSet(current) != current) {
				// once per pool: the database no longer accepts a credential the store
				// still vouches for (the role was dropped, the password changed)
				logger.warn("Lease '" + this.leaseName + "': the database refused the credential of pool "
						+ current.getPoolName() + " (SQLState " + refusal + "); obtaining a new one");
				this.onRefused.run();
			}
			throw ex;
		}
	}

	private static @Nullable String refusal(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			// class 28: invalid authorization specification
			if (cause instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("28")) {
				return sql.getSQLState();
			}
		}
		return null;
	}

	/**
	 * Set what to do, once per pool, when the database refuses the pool's credential.
	 * @param onRefused the action, such as obtaining a new credential
	 */
	void setOnRefused(Runnable onRefused) {
		this.onRefused = onRefused;
	}

	/**
	 * The serving pool got a new password (a static role's rotation): a refusal of it may
	 * be reported again.
	 */
	void credentialChanged() {
		this.refusedPool.set(null);
	}

	/**
	 * Return the pool serving now.
	 * @return the pool, or {@code null} before the first
	 */
	@Nullable HikariDataSource currentPool() {
		return this.pool;
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		throw new SQLFeatureNotSupportedException(
				"The credentials of this DataSource come from lease '" + this.leaseName + "'");
	}

	/**
	 * Return the name of the lease whose credential this data source uses.
	 * @return the lease's name
	 */
	public String getLeaseName() {
		return this.leaseName;
	}

	/**
	 * Return the pool connections are borrowed from now.
	 * @return the pool, or {@code null} before the first credential
	 */
	public @Nullable HikariDataSource getPool() {
		return this.pool;
	}

	@Nullable HikariDataSource swap(HikariDataSource next) {
		HikariDataSource previous = this.pool;
		this.pool = next;
		this.unavailable = null;
		return previous;
	}

	void markUnavailable(LeaseState state) {
		this.unavailable = state;
	}

	void markAvailable() {
		if (this.pool != null) {
			this.unavailable = null;
		}
	}

	@Override
	public void close() {
		HikariDataSource current = this.pool;
		if (current != null) {
			current.close();
		}
	}

	@Override
	public PrintWriter getLogWriter() throws SQLException {
		return requirePool().getLogWriter();
	}

	@Override
	public void setLogWriter(PrintWriter out) throws SQLException {
		requirePool().setLogWriter(out);
	}

	@Override
	public void setLoginTimeout(int seconds) throws SQLException {
		requirePool().setLoginTimeout(seconds);
	}

	@Override
	public int getLoginTimeout() throws SQLException {
		return requirePool().getLoginTimeout();
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		throw new SQLFeatureNotSupportedException();
	}

	@Override
	public <T> T unwrap(Class<T> type) throws SQLException {
		if (type.isInstance(this)) {
			return type.cast(this);
		}
		return requirePool().unwrap(type);
	}

	@Override
	public boolean isWrapperFor(Class<?> type) throws SQLException {
		return type.isInstance(this) || (this.pool != null && this.pool.isWrapperFor(type));
	}

	private HikariDataSource requirePool() throws SQLException {
		HikariDataSource current = this.pool;
		if (current == null) {
			throw new SQLException("Lease '" + this.leaseName + "' holds no credential yet", "08001");
		}
		return current;
	}

	@Override
	public String toString() {
		return "LeasedDataSource[lease=" + this.leaseName + "]";
	}

}
