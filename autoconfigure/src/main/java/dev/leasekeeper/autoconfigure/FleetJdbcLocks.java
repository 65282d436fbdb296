package dev.leasekeeper.autoconfigure;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

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

	FleetJdbcLocks(LeasekeeperProperties.Lock lock) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(lock.getUrl());
		config.setUsername(lock.getUsername());
		config.setPassword(lock.getPassword());
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

	LockRegistry<?> registry() {
		return this.registry;
	}

	@Override
	public void close() {
		this.repository.close();
		this.pool.close();
	}

}
