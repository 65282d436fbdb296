package dev.leasekeeper.autoconfigure;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.Credentials;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The election's {@link JdbcLockRegistry} when the application has no
 * {@link LockRegistry} of its own: Spring Integration's {@code INT_LOCK} table, region
 * {@code leasekeeper}, on a small pool of its own ({@code leasekeeper.fleet.lock.*}),
 * never on the shared grant it elects a leader for. Loaded only then, so that a fleet on
 * a Redis or ZooKeeper registry needs neither spring-integration-jdbc nor HikariCP.
 *
 * @author Leasekeeper
 */
final class FleetJdbcLocks implements AutoCloseable {

	private final HikariDataSource pool;

	private final DefaultLockRepository repository;

	private final JdbcLockRegistry registry;

	/**
	 * Open the lock's pool.
	 * @param lock its settings
	 * @param credential the credential of {@code leasekeeper.fleet.lock.lease}'s lease
	 * (its username and password), or {@code null} for the configured username and
	 * password
	 */
	FleetJdbcLocks(LeasekeeperProperties.Lock lock, @Nullable Credentials credential) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(lock.getUrl());
		if (credential != null) {
			config.setCredentials(credential);
		}
		else {
			config.setUsername(lock.getUsername());
			config.setPassword(lock.getPassword());
		}
		config.setPoolName("leasekeeper-fleet-lock");
		config.setMaximumPoolSize(2);
		config.setMinimumIdle(1);
		this.pool = new HikariDataSource(config);
		this.repository = new DefaultLockRepository(this.pool);
		this.repository.setRegion("leasekeeper");
		this.repository.setTimeToLive((int) lock.getTimeToLive().toMillis());
		this.repository.setTransactionManager(new DataSourceTransactionManager(this.pool));
		this.repository.afterPropertiesSet();
		this.repository.afterSingletonsInstantiated();
		this.repository.start();
		this.registry = new JdbcLockRegistry(this.repository, lock.getTimeToLive());
	}

	/**
	 * Take the lock lease's new credential: new connections log in with it, idle ones are
	 * closed, busy ones when they are returned (a lock operation is short).
	 * @param credential the new username and password
	 */
	void credentialChanged(Credentials credential) {
		this.pool.getHikariConfigMXBean().setCredentials(credential);
		if (this.pool.getHikariPoolMXBean() != null) {
			this.pool.getHikariPoolMXBean().softEvictConnections();
		}
	}

	LockRegistry<?> registry() {
		return this.registry;
	}

	@Override
	public void close() {
		this.repository.close();
		this.pool.close();
	}

}
