package dev.leasekeeper.autoconfigure;

import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.jdbc.LeasedDataSource;
import dev.leasekeeper.jdbc.PoolRefresher;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.SmartLifecycle;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Auto-configuration of the application's {@code DataSource} from the lease declared with
 * {@code datasource: true}: a {@link LeasedDataSource} over a HikariCP pool built from
 * {@code spring.datasource.*} and {@code spring.datasource.hikari.*} with the lease's
 * username and password, rebuilt by a {@link PoolRefresher} whenever the credential is
 * replaced. Boot's own DataSource auto-configuration backs off.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@AutoConfiguration(before = DataSourceAutoConfiguration.class, after = LeasekeeperAutoConfiguration.class)
@ConditionalOnClass({ HikariDataSource.class, DataSourceProperties.class })
@Conditional(LeasekeeperDataSourceAutoConfiguration.OnDatasourceLease.class)
@EnableConfigurationProperties(DataSourceProperties.class)
public final class LeasekeeperDataSourceAutoConfiguration {

	private static final Log logger = LogFactory.getLog(LeasekeeperDataSourceAutoConfiguration.class);

	/**
	 * The refresher of spring.datasource's pool (named pools have refreshers of their
	 * own).
	 */
	static final String PRIMARY_REFRESHER = "leasekeeperPoolRefresher";

	@Bean
	PoolRefresher leasekeeperPoolRefresher(LeasekeeperProperties properties, DataSourceProperties dataSource,
			ObjectProvider<JdbcConnectionDetails> connectionDetails, Environment environment,
			LeaseScheduler scheduler) {
		String name = datasourceLease(properties);
		Lease lease = properties.getLeases().get(name);
		if (dataSource.getUsername() != null || dataSource.getPassword() != null) {
			logger.warn("spring.datasource.username and spring.datasource.password are ignored: the credential comes"
					+ " from lease '" + name + "'");
		}
		HikariConfig template = new HikariConfig();
		// a service connection (Testcontainers, Docker Compose) names the database, else
		// spring.datasource.*; the credential is always the lease's
		JdbcConnectionDetails details = connectionDetails.getIfAvailable();
		template.setJdbcUrl((details != null) ? details.getJdbcUrl() : dataSource.determineUrl());
		String driver = (details != null) ? details.getDriverClassName() : dataSource.determineDriverClassName();
		if (driver != null) {
			template.setDriverClassName(driver);
		}
		Binder.get(environment).bind("spring.datasource.hikari", Bindable.ofInstance(template));
		template.setUsername(null);
		template.setPassword(null);
		PoolRefresher refresher = new PoolRefresher(name, template, lease.getUsernameKey(), lease.getPasswordKey(),
				scheduler);
		refresher.setStaticCredential(lease.isStatic());
		return refresher;
	}

	@Bean
	LeaseConsumer leasekeeperPoolRefresherConsumer(LeasekeeperProperties properties,
			@Qualifier(PRIMARY_REFRESHER) PoolRefresher refresher) {
		return new LeaseConsumer(datasourceLease(properties), refresher);
	}

	@Bean
	@ConditionalOnMissingBean(javax.sql.DataSource.class)
	LeasedDataSource dataSource(LeasekeeperProperties properties, @Qualifier(PRIMARY_REFRESHER) PoolRefresher refresher,
			BeanFactory beanFactory) {
		// the lease is obtained (and the first pool built) before the DataSource is
		// handed out
		LeaseRenewer renewer = beanFactory.getBean(LeaseRenewerRegistrar.beanName(datasourceLease(properties)),
				LeaseRenewer.class);
		refresher.setRenewer(renewer);
		return refresher.getDataSource();
	}

	/**
	 * With Micrometer: each pool reports its {@code hikaricp.*} meters (removed when it
	 * closes), and swaps are timed. Set before the first pool is built.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class PoolMetricsConfiguration {

		@Bean
		static BeanPostProcessor leasekeeperPoolRefresherMetrics(ObjectProvider<MeterRegistry> meterRegistry) {
			return PoolRefreshers.metrics(meterRegistry, PRIMARY_REFRESHER::equals);
		}

	}

	/**
	 * Warns when the application defines its own {@code DataSource} beans, so that the
	 * pool of {@code datasource: true} is never built and nothing uses the lease's
	 * credential.
	 */
	@Bean
	SmartInitializingSingleton leasekeeperPrimaryDataSourceCheck(ObjectProvider<javax.sql.DataSource> dataSources,
			LeasekeeperProperties properties) {
		return () -> {
			String lease = datasourceLease(properties);
			boolean served = dataSources.orderedStream()
				.anyMatch((dataSource) -> dataSource instanceof LeasedDataSource leased
						&& leased.getLeaseName().equals(lease));
			if (!served) {
				logger.warn("Lease '" + lease + "' has datasource: true, but the application defines its own"
						+ " DataSource beans, so spring.datasource's pool is not built and nothing uses this lease's"
						+ " credential; name the application's pool instead (leasekeeper.leases." + lease
						+ ".datasource: <bean name>)");
			}
		};
	}

	/**
	 * Drains the pool and closes it before the leases are revoked.
	 */
	@Bean
	SmartLifecycle leasekeeperPoolCloser(@Qualifier(PRIMARY_REFRESHER) PoolRefresher refresher,
			LeasekeeperProperties properties) {
		return PoolRefreshers.closer(() -> List.of(refresher), properties);
	}

	private static String datasourceLease(LeasekeeperProperties properties) {
		return properties.getLeases()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().feedsPrimaryDataSource())
			.map(Map.Entry::getKey)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No lease has datasource: true"));
	}

	/**
	 * Matches when a lease is declared with {@code datasource: true} and Leasekeeper is
	 * enabled.
	 */
	static class OnDatasourceLease extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			Binder binder = Binder.get(context.getEnvironment());
			if (!OnLeasekeeperEnabledCondition.isEnabled(context.getEnvironment().getProperty("leasekeeper.enabled"))) {
				return ConditionOutcome.noMatch("leasekeeper.enabled is false");
			}
			Map<String, Lease> leases = binder.bind("leasekeeper.leases", Bindable.mapOf(String.class, Lease.class))
				.orElse(Map.of());
			return leases.values().stream().anyMatch(Lease::feedsPrimaryDataSource)
					? ConditionOutcome.match("a lease has datasource: true")
					: ConditionOutcome.noMatch("no lease has datasource: true");
		}

	}

}
