package dev.leasekeeper.autoconfigure;

import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.jdbc.PoolRefresher;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Auto-configuration of the pools an application defines itself and names in a lease
 * ({@code datasource: reportsDataSource}): each such {@link HikariDataSource} bean lends
 * its settings to a {@link PoolRefresher} and is replaced by the refresher's data source,
 * whose pools take their credential from the lease and are rebuilt, validated, swapped
 * and drained whenever it is replaced, as for {@code spring.datasource}.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@AutoConfiguration(after = LeasekeeperAutoConfiguration.class)
@ConditionalOnClass(HikariDataSource.class)
@Conditional(LeasekeeperNamedDataSourceAutoConfiguration.OnNamedDatasourceLease.class)
public final class LeasekeeperNamedDataSourceAutoConfiguration {

	@Bean
	static NamedPools leasekeeperNamedPools(Environment environment) {
		return new NamedPools(NamedDataSources.leasesByDataSource(leases(environment)));
	}

	/**
	 * Drains the named pools and closes them before the leases are revoked.
	 */
	@Bean
	SmartLifecycle leasekeeperNamedPoolCloser(NamedPools pools, LeasekeeperProperties properties) {
		return PoolRefreshers.closer(pools::refreshers, properties);
	}

	/**
	 * With Micrometer: the named pools' meters.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class NamedPoolMetricsConfiguration {

		@Bean
		static BeanPostProcessor leasekeeperNamedPoolMetrics(Environment environment,
				ObjectProvider<MeterRegistry> meterRegistry) {
			java.util.Set<String> refreshers = new java.util.HashSet<>();
			NamedDataSources.leasesByDataSource(leases(environment))
				.values()
				.forEach((lease) -> refreshers.add(NamedDataSources.refresherName(lease)));
			return PoolRefreshers.metrics(meterRegistry, refreshers::contains);
		}

	}

	private static Map<String, Lease> leases(Environment environment) {
		return Binder.get(environment)
			.bind("leasekeeper.leases", Bindable.mapOf(String.class, Lease.class))
			.orElse(Map.of());
	}

	/**
	 * Replaces each named pool bean by its refresher's data source, and gives each
	 * refresher, once every bean is made, its lease.
	 */
	static final class NamedPools implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton {

		private final Map<String, String> leasesByDataSource;

		private @Nullable BeanFactory beanFactory;

		NamedPools(Map<String, String> leasesByDataSource) {
			this.leasesByDataSource = leasesByDataSource;
		}

		@Override
		public void setBeanFactory(BeanFactory beanFactory) {
			this.beanFactory = beanFactory;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			String lease = this.leasesByDataSource.get(beanName);
			if (lease == null) {
				return bean;
			}
			if (!(bean instanceof HikariDataSource pool)) {
				throw new InvalidConfigurationPropertyValueException("leasekeeper.leases." + lease + ".datasource",
						beanName,
						"must name a HikariDataSource bean, but " + beanName + " is a " + bean.getClass().getName());
			}
			// the application's pool lends its settings (URL, sizes, timeouts) and is
			// never
			// started: the credential is always the lease's
			HikariConfig template = new HikariConfig();
			pool.copyStateTo(template);
			template.setUsername(null);
			template.setPassword(null);
			PoolRefresher refresher = refresher(lease);
			refresher.setTemplate(template);
			return refresher.getDataSource();
		}

		@Override
		public void afterSingletonsInstantiated() {
			for (String lease : this.leasesByDataSource.values()) {
				refresher(lease)
					.setRenewer(factory().getBean(LeaseRenewerRegistrar.beanName(lease), LeaseRenewer.class));
			}
		}

		java.util.List<PoolRefresher> refreshers() {
			return this.leasesByDataSource.values().stream().map(this::refresher).toList();
		}

		private PoolRefresher refresher(String lease) {
			return factory().getBean(NamedDataSources.refresherName(lease), PoolRefresher.class);
		}

		private BeanFactory factory() {
			BeanFactory factory = this.beanFactory;
			if (factory == null) {
				throw new IllegalStateException("No bean factory");
			}
			return factory;
		}

	}

	/**
	 * Matches when a lease names a pool bean ({@code datasource: <bean name>}) and
	 * Leasekeeper is enabled.
	 */
	static class OnNamedDatasourceLease extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			if (!OnLeasekeeperEnabledCondition.isEnabled(context.getEnvironment().getProperty("leasekeeper.enabled"))) {
				return ConditionOutcome.noMatch("leasekeeper.enabled is false");
			}
			return leases(context.getEnvironment()).values()
				.stream()
				.anyMatch((lease) -> lease.dataSourceBean() != null)
						? ConditionOutcome.match("a lease names a pool bean")
						: ConditionOutcome.noMatch("no lease names a pool bean");
		}

	}

}
