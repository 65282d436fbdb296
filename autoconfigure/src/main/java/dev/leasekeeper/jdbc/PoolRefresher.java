package dev.leasekeeper.jdbc;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.pool.HikariPool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.RotationCause;

/**
 * The synchronous consumer of a database lease: for each new credential, builds a pool
 * from the same Hikari settings with a generation-suffixed name, warms it with a real
 * connection (which validates the credential) and then with as many as the serving pool
 * holds, and swaps it into the {@link LeasedDataSource}; when the old credential is
 * released, drains the old pool (soft-evict until no connection is active, bounded by the
 * old lease's remaining time) and closes it, and only then lets the engine revoke the old
 * lease.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class PoolRefresher implements LeaseListener {

	private static final Log logger = LogFactory.getLog(PoolRefresher.class);

	/** The pool settings; for an application's own pool, set once its bean is built. */
	private volatile @Nullable HikariConfig template;

	private final String usernameKey;

	private final String passwordKey;

	private volatile @Nullable MetricsTrackerFactory metrics;

	/** How long a new pool may take to open the serving pool's connections. */
	static final java.time.Duration WARM_BOUND = java.time.Duration.ofSeconds(2);

	/** How often a draining pool is looked at. */
	static final java.time.Duration DRAIN_CHECK = java.time.Duration.ofMillis(50);

	private final LeaseScheduler scheduler;

	private final LeasedDataSource dataSource;

	private final Map<Integer, HikariDataSource> retired = new ConcurrentHashMap<>();

	/** Replaced pools whose borrowed connections are being waited for. */
	private final Set<HikariDataSource> draining = ConcurrentHashMap.newKeySet();

	private volatile int rejections;

	/** Whether the lease is a static role's credential: same user, new password. */
	private volatile boolean staticCredential;

	private volatile @Nullable LeaseRenewer renewer;

	private volatile java.util.function.Consumer<java.time.Duration> swapObserver = (duration) -> {
	};

	/**
	 * Create a new refresher.
	 * @param leaseName the lease whose credential feeds the pool
	 * @param template the pool settings ({@code spring.datasource.*},
	 * {@code spring.datasource.hikari.*}), or {@code null} until
	 * {@link #setTemplate(HikariConfig)}
	 * @param usernameKey the lease's data field holding the username
	 * @param passwordKey the lease's data field holding the password
	 * @param scheduler the engine's scheduler: draining pools are looked at on it, so
	 * that a drain holds no thread while it waits
	 */
	public PoolRefresher(String leaseName, @Nullable HikariConfig template, String usernameKey, String passwordKey,
			LeaseScheduler scheduler) {
		this.template = template;
		this.usernameKey = usernameKey;
		this.passwordKey = passwordKey;
		this.scheduler = scheduler;
		this.dataSource = new LeasedDataSource(leaseName);
	}

	/**
	 * Set the pool settings, for a refresher made before them: those of the application's
	 * own {@code HikariDataSource} bean the lease feeds.
	 * @param template the settings, without a username or password
	 */
	public void setTemplate(HikariConfig template) {
		this.template = template;
	}

	/**
	 * Return the data source this refresher feeds.
	 * @return the data source
	 */
	public LeasedDataSource getDataSource() {
		return this.dataSource;
	}

	/**
	 * Set where each new pool reports its meters.
	 * @param metrics the metrics tracker factory
	 */
	public void setMetricsTrackerFactory(MetricsTrackerFactory metrics) {
		this.metrics = metrics;
	}

	/**
	 * Set what hears how long each swap took, from building the new pool to serving from
	 * it.
	 * @param swapObserver the observer
	 */
	public void setSwapObserver(java.util.function.Consumer<java.time.Duration> swapObserver) {
		this.swapObserver = swapObserver;
	}

	/**
	 * Set the lease this refresher's pools use, so that the database's word reaches it:
	 * when PostgreSQL refuses the serving pool's credential at log-in while the store
	 * still vouches for it (its role was dropped out of band, say), a new credential is
	 * obtained ({@link RotationCause#REJECTED}), once per pool; when a statement is
	 * refused for lost privileges, the lease is checked with the store at once.
	 * @param renewer the lease
	 */
	public void setRenewer(LeaseRenewer renewer) {
		this.renewer = renewer;
		// a static role's password refused: Vault rotated it, read the new one at once
		this.dataSource.setOnRefused(() -> renewer
			.rotateNow(this.staticCredential ? RotationCause.STATIC_ROTATION : RotationCause.REJECTED));
	}

	/**
	 * Say whether the lease is a database static role's credential: each new generation
	 * is the same user with a new password, which the serving pool takes for its new
	 * connections (HikariCP's credentials, atomically) instead of being rebuilt; its open
	 * connections stay, as the database keeps their sessions.
	 * @param staticCredential whether it is
	 */
	public void setStaticCredential(boolean staticCredential) {
		this.staticCredential = staticCredential;
	}

	/**
	 * Return how many new credentials were rejected because they could not log in.
	 * @return the count
	 */
	public int getRejections() {
		return this.rejections;
	}

	@Override
	public void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) throws Exception {
		long start = System.nanoTime();
		HikariDataSource serving = this.dataSource.currentPool();
		if (this.staticCredential && previous != null && serving != null && !serving.isClosed()
				&& field(candidate, this.usernameKey).equals(field(previous, this.usernameKey))) {
			newPassword(candidate, serving);
			this.swapObserver.accept(java.time.Duration.ofNanos(System.nanoTime() - start));
			return;
		}
		HikariDataSource pool = build(candidate);
		warm(pool, serving, warmBudget(previous));
		if (Thread.interrupted()) {
			// the engine gave up on this offer (the grant it replaces ran out): the new
			// grant will be revoked, so its pool must never serve. Closed with the
			// interrupt cleared (HikariCP would stop waiting for the connections it is
			// opening, and say so), then the interrupt is kept
			pool.close();
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Lease '" + candidate.name() + "' generation " + candidate.generation()
					+ ": interrupted while its pool opened its connections");
		}
		HikariDataSource replaced = this.dataSource.swap(pool);
		if (replaced != null && previous != null) {
			this.retired.put(previous.generation(), replaced);
		}
		else if (replaced != null) {
			replaced.close();
		}
		this.swapObserver.accept(java.time.Duration.ofNanos(System.nanoTime() - start));
		logger.info("Lease '" + candidate.name() + "': pool " + pool.getPoolName() + " now serves connections");
	}

	/**
	 * Open in the new pool as many connections as the serving pool holds, before the
	 * swap: the queries that move to it find them open instead of each waiting for a
	 * log-in (HikariCP would open them one by one after the swap, while the queries
	 * wait). Connections are borrowed together and given back; a database that takes no
	 * more only delays the swap, by at most the budget (each borrow waits no longer than
	 * what is left of it), and the pool opens the rest as it would have.
	 */
	private static void warm(HikariDataSource pool, @Nullable HikariDataSource serving, java.time.Duration budget) {
		if (serving == null || serving.isClosed() || serving.getHikariPoolMXBean() == null
				|| !(pool.getHikariPoolMXBean() instanceof HikariPool opening) || budget.isZero()) {
			return;
		}
		int wanted = Math.min(serving.getHikariPoolMXBean().getTotalConnections(), pool.getMaximumPoolSize());
		long deadline = System.nanoTime() + budget.toNanos();
		List<Connection> borrowed = new ArrayList<>(wanted);
		try {
			long left;
			while (borrowed.size() < wanted && (left = deadline - System.nanoTime()) > 0
					&& !Thread.currentThread().isInterrupted()) {
				borrowed
					.add(opening.getConnection(Math.max(1, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(left))));
			}
		}
		catch (java.sql.SQLException ex) {
			// never the message: a driver may echo the connection settings
			logger.debug("Pool " + pool.getPoolName() + " opened " + borrowed.size() + " of " + wanted
					+ " connections before serving (SQLState " + ex.getSQLState() + ")");
		}
		finally {
			for (Connection connection : borrowed) {
				try {
					connection.close();
				}
				catch (java.sql.SQLException ex) {
					// given back to the pool: nothing is lost
				}
			}
		}
	}

	/**
	 * How long the new pool may open connections: {@link #WARM_BOUND}, or a quarter of
	 * what is left of the grant it replaces if that is less (a short lease's rotation
	 * keeps its time for the swap itself).
	 */
	private java.time.Duration warmBudget(@Nullable LeaseSnapshot previous) {
		Instant until = (previous != null) ? previous.validUntil() : null;
		if (until == null) {
			return WARM_BOUND;
		}
		java.time.Duration quarter = java.time.Duration.between(this.scheduler.now(), until).dividedBy(4);
		if (quarter.isNegative()) {
			return java.time.Duration.ZERO;
		}
		return (quarter.compareTo(WARM_BOUND) < 0) ? quarter : WARM_BOUND;
	}

	/**
	 * Give the serving pool a static role's new password, once a connection with it
	 * proves that the database takes it.
	 */
	private void newPassword(LeaseSnapshot candidate, HikariDataSource pool) {
		String username = field(candidate, this.usernameKey);
		String password = field(candidate, this.passwordKey);
		try {
			connect(pool, username, password);
		}
		catch (Exception ex) {
			throw rejected(candidate, ex);
		}
		pool.getHikariConfigMXBean().setCredentials(com.zaxxer.hikari.util.Credentials.of(username, password));
		this.dataSource.credentialChanged();
		logger.info("Lease '" + candidate.name() + "': pool " + pool.getPoolName()
				+ " opens its new connections with the password of generation " + candidate.generation());
	}

	/**
	 * Check that the database takes a credential, with one connection of the pool's
	 * settings, without touching the serving pool: what a fleet's leader does with a new
	 * grant before it publishes it.
	 * @param data the credential fields
	 * @throws Exception if the settings are not known yet, or the database refuses the
	 * credential
	 */
	public void check(Map<String, Object> data) throws Exception {
		HikariConfig template = this.template;
		if (template == null) {
			throw new IllegalStateException("the pool's settings are not known yet");
		}
		Object username = data.get(this.usernameKey);
		Object password = data.get(this.passwordKey);
		if (!(username instanceof String user) || !(password instanceof String secret)) {
			throw new IllegalStateException(
					"the credential has no field " + this.usernameKey + " and " + this.passwordKey);
		}
		connect(template, user, secret);
	}

	/** One connection with the pool's URL and driver properties, closed at once. */
	private static void connect(HikariConfig settings, String username, String password) throws Exception {
		if (settings.getJdbcUrl() == null) {
			return;
		}
		java.util.Properties properties = new java.util.Properties();
		properties.putAll(settings.getDataSourceProperties());
		properties.setProperty("user", username);
		properties.setProperty("password", password);
		try (Connection connection = java.sql.DriverManager.getConnection(settings.getJdbcUrl(), properties)) {
			if (!connection.isValid(5)) {
				throw new IllegalStateException("the connection is not valid");
			}
		}
	}

	HikariDataSource build(LeaseSnapshot candidate) throws Exception {
		HikariConfig template = this.template;
		if (template == null) {
			throw new IllegalStateException("Lease '" + candidate.name() + "': its pool's settings are not known yet");
		}
		String username = field(candidate, this.usernameKey);
		String password = field(candidate, this.passwordKey);
		HikariConfig config = new HikariConfig();
		template.copyStateTo(config);
		config.setUsername(username);
		config.setPassword(password);
		String base = (template.getPoolName() != null) ? template.getPoolName() : candidate.name();
		config.setPoolName(base + "-" + candidate.generation());
		if (this.metrics != null) {
			config.setMetricsTrackerFactory(this.metrics);
		}
		if (template.getExceptionOverrideClassName() == null) {
			config.setExceptionOverride(
					new PrivilegeLossOverride(template.getExceptionOverride(), config.getPoolName(), () -> {
						LeaseRenewer lease = this.renewer;
						if (lease != null) {
							lease.renewNow();
						}
					}));
		}
		HikariDataSource pool;
		try {
			pool = new HikariDataSource(config);
		}
		catch (RuntimeException ex) {
			throw rejected(candidate, ex);
		}
		try (Connection connection = pool.getConnection()) {
			if (!connection.isValid(5)) {
				throw new IllegalStateException("the connection is not valid");
			}
		}
		catch (Exception ex) {
			pool.close();
			throw rejected(candidate, ex);
		}
		return pool;
	}

	private IllegalStateException rejected(LeaseSnapshot candidate, Exception cause) {
		this.rejections++;
		String reason = (cause instanceof java.sql.SQLException sql) ? "SQLState " + sql.getSQLState()
				: cause.getClass().getSimpleName();
		Throwable root = cause;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		if (root instanceof java.sql.SQLException sql) {
			reason = "SQLState " + sql.getSQLState();
		}
		// never the exception's message: a driver may echo the connection settings
		return new IllegalStateException("The credential of lease '" + candidate.name() + "' generation "
				+ candidate.generation() + " cannot log in (" + reason + "); the current pool keeps serving");
	}

	/**
	 * Drain the replaced generation's pool and close it: borrowed connections (an open
	 * transaction) are waited for until the replaced lease's validity ends, looked at
	 * every {@link #DRAIN_CHECK} on the scheduling thread, never by a parked thread.
	 */
	@Override
	public CompletionStage<?> releaseLater(LeaseSnapshot previous) {
		HikariDataSource old = this.retired.remove(previous.generation());
		if (old == null) {
			return CompletableFuture.completedFuture(null);
		}
		Instant deadline = (previous.validUntil() != null) ? previous.validUntil()
				: this.scheduler.now().plusSeconds(30);
		if (old.getHikariPoolMXBean() != null) {
			old.getHikariPoolMXBean().softEvictConnections();
		}
		CompletableFuture<Void> drained = new CompletableFuture<>();
		this.draining.add(old);
		this.scheduler.schedule(this.scheduler.now(), () -> drain(old, deadline, drained));
		return drained;
	}

	/**
	 * Drain and close, waiting on the calling thread: for a candidate given back when
	 * another consumer rejected it, whose pool served only briefly.
	 */
	@Override
	public void release(LeaseSnapshot previous) {
		HikariDataSource old = this.retired.remove(previous.generation());
		if (old == null) {
			return;
		}
		Instant deadline = (previous.validUntil() != null) ? previous.validUntil()
				: this.scheduler.now().plusSeconds(30);
		if (old.getHikariPoolMXBean() != null) {
			old.getHikariPoolMXBean().softEvictConnections();
			while (old.getHikariPoolMXBean().getActiveConnections() > 0 && this.scheduler.now().isBefore(deadline)) {
				LockSupport.parkNanos(DRAIN_CHECK.toNanos());
			}
		}
		old.close();
	}

	private void drain(HikariDataSource old, Instant deadline, CompletableFuture<Void> drained) {
		int active = (old.getHikariPoolMXBean() != null) ? old.getHikariPoolMXBean().getActiveConnections() : 0;
		if (active > 0 && this.scheduler.now().isBefore(deadline)) {
			this.scheduler.schedule(this.scheduler.now().plus(DRAIN_CHECK), () -> drain(old, deadline, drained));
			return;
		}
		if (active > 0) {
			logger.warn("Pool " + old.getPoolName() + " still had " + active
					+ " active connections when its lease ran out; closing it");
		}
		// closing a pool talks to the database: on a worker
		this.scheduler.call(() -> {
			old.close();
			return Boolean.TRUE;
		}, (result, failure) -> {
			this.draining.remove(old);
			logger.info("Pool " + old.getPoolName() + " drained and closed");
			drained.complete(null);
		});
	}

	/**
	 * Drain every pool and close it, on shutdown: the serving pool and those still
	 * draining from a rotation retire their idle connections and close once their
	 * borrowed connections came back (an open transaction commits), or when {@code bound}
	 * has passed (what is still borrowed then is aborted by Hikari). Waits on the calling
	 * thread.
	 * @param bound how long to wait for borrowed connections, for all pools together
	 */
	public void drainAndClose(java.time.Duration bound) {
		List<HikariDataSource> pools = new ArrayList<>(this.draining);
		pools.addAll(this.retired.values());
		HikariDataSource serving = this.dataSource.getPool();
		if (serving != null) {
			pools.add(serving);
		}
		for (HikariDataSource pool : pools) {
			if (pool.getHikariPoolMXBean() != null) {
				pool.getHikariPoolMXBean().softEvictConnections();
			}
		}
		long deadline = System.nanoTime() + bound.toNanos();
		while (active(pools) > 0 && System.nanoTime() < deadline) {
			LockSupport.parkNanos(DRAIN_CHECK.toNanos());
		}
		int left = active(pools);
		if (left > 0) {
			logger.warn("Closing the pools of lease '" + this.dataSource.getLeaseName() + "' with " + left
					+ " connections still borrowed after " + bound);
		}
		for (HikariDataSource pool : pools) {
			pool.close();
		}
		this.retired.clear();
		this.draining.removeAll(pools);
		this.dataSource.close();
	}

	private static int active(List<HikariDataSource> pools) {
		int active = 0;
		for (HikariDataSource pool : pools) {
			if (!pool.isClosed() && pool.getHikariPoolMXBean() != null) {
				active += pool.getHikariPoolMXBean().getActiveConnections();
			}
		}
		return active;
	}

	@Override
	public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
		this.dataSource.markUnavailable(lease.state());
	}

	@Override
	public void onAcquired(LeaseSnapshot lease) {
		this.dataSource.markAvailable();
	}

	@Override
	public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
		this.dataSource.markAvailable();
	}

	private static String field(LeaseSnapshot candidate, String key) {
		Object value = candidate.data().get(key);
		if (!(value instanceof String text) || text.isEmpty()) {
			throw new IllegalStateException("Lease '" + candidate.name() + "' generation " + candidate.generation()
					+ " has no '" + key + "' field");
		}
		return text;
	}

}
