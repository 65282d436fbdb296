package dev.leasekeeper.autoconfigure;

import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.leasekeeper.jdbc.PoolRefresher;
import dev.leasekeeper.metrics.LeaseMetrics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;

/**
 * What every pool refresher gets, whether it feeds {@code spring.datasource} or a pool
 * the application named: its meters, and a drain and close before the leases are revoked.
 *
 * @author Leasekeeper
 */
final class PoolRefreshers {

	private PoolRefreshers() {
	}

	/**
	 * Drains the pools and closes them before the leases are revoked (secret leases stop
	 * in a lower phase): borrowed connections get up to half of
	 * {@code leasekeeper.shutdown-timeout} to come back.
	 * @param refreshers the refreshers whose pools to close
	 * @param properties the properties
	 * @return the lifecycle
	 */
	static SmartLifecycle closer(Supplier<List<PoolRefresher>> refreshers, LeasekeeperProperties properties) {
		return new BeforeLeasesStop(() -> refreshers.get()
			.forEach((refresher) -> refresher.drainAndClose(properties.getShutdownTimeout().dividedBy(2))));
	}

	/**
	 * With Micrometer: each pool of the refreshers named reports its {@code hikaricp.*}
	 * meters (removed when it closes), and swaps are timed. Set before the first pool is
	 * built. Only for a configuration that is conditional on Micrometer.
	 * @param meterRegistry the registry, if any
	 * @param names the bean names of the refreshers to measure
	 * @return the post-processor
	 */
	static BeanPostProcessor metrics(ObjectProvider<MeterRegistry> meterRegistry, Predicate<String> names) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessBeforeInitialization(Object bean, String beanName) {
				MeterRegistry registry = (bean instanceof PoolRefresher && names.test(beanName))
						? meterRegistry.getIfAvailable() : null;
				if (bean instanceof PoolRefresher refresher && registry != null) {
					refresher.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
					Timer swaps = Timer.builder(LeaseMetrics.POOL_SWAP_DURATION)
						.description("Time from building a new pool to serving from it")
						.tags("lease", refresher.getDataSource().getLeaseName())
						.register(registry);
					refresher.setSwapObserver(swaps::record);
				}
				return bean;
			}

		};
	}

}
