package dev.leasekeeper.jdbc;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.SQLExceptionOverride;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Watches the errors of one pool's statements: the first that says the credential lost
 * its privileges ({@code 42501}) or was refused (class {@code 28}) has the lease checked
 * with the store at once, instead of at its next planned renewal (a lease revoked out of
 * band takes its privileges with it), and evicts that connection, so that the pool tries
 * the credential again. Other errors go to the application's own override, if any.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
final class PrivilegeLossOverride implements SQLExceptionOverride {

	private static final Log logger = LogFactory.getLog(PrivilegeLossOverride.class);

	private final @Nullable SQLExceptionOverride delegate;

	private final String poolName;

	private final Runnable check;

	private final AtomicBoolean checked = new AtomicBoolean();

	PrivilegeLossOverride(@Nullable SQLExceptionOverride delegate, String poolName, Runnable check) {
		this.delegate = delegate;
		this.poolName = poolName;
		this.check = check;
	}

	@java.lang.Override
	public Override adjudicate(SQLException ex) {
		Override decided = (this.delegate != null) ? this.delegate.adjudicate(ex) : Override.CONTINUE_EVICT;
		String state = ex.getSQLState();
		boolean privilegeLost = state != null && (state.equals("42501") || state.startsWith("28"));
		if (privilegeLost && this.checked.compareAndSet(false, true)) {
			logger.warn("Pool " + this.poolName + ": the database refused a statement (SQLState " + state
					+ "); checking the lease with the store now");
			this.check.run();
			return (decided != Override.DO_NOT_EVICT) ? Override.MUST_EVICT : decided;
		}
		return decided;
	}

}
