package dev.leasekeeper.autoconfigure;

import java.util.Map;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.util.ClassUtils;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.jdbc.PoolRefresher;

/**
 * The pools an application defines itself and names in a lease
 * ({@code datasource: reportsDataSource}): for each, a {@link PoolRefresher} consuming
 * the lease, registered beside the lease's renewer.
 *
 * @author Leasekeeper
 */
final class NamedDataSources {

	private NamedDataSources() {
	}

	/**
	 * Register the refresher of a lease that names a pool bean, and its consumer.
	 * @param registry the registry
	 * @param lease the lease's name
	 * @param settings the lease's settings
	 * @param dataSource the name of the application's pool bean
	 */
	static void register(BeanDefinitionRegistry registry, String lease, Lease settings, String dataSource) {
		String property = "leasekeeper.leases." + lease + ".datasource";
		if (!ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", NamedDataSources.class.getClassLoader())) {
			throw new InvalidConfigurationPropertyValueException(property, dataSource,
					"names a pool, but HikariCP is not on the classpath");
		}
		if (!registry.containsBeanDefinition(dataSource)) {
			throw new InvalidConfigurationPropertyValueException(property, dataSource,
					"must be true, false, or the name of a HikariDataSource bean the application defines; there is no"
							+ " bean named " + dataSource);
		}
		BeanFactory beanFactory = (BeanFactory) registry;
		RootBeanDefinition refresher = new RootBeanDefinition(PoolRefresher.class);
		refresher.setInstanceSupplier(() -> {
			PoolRefresher pools = new PoolRefresher(lease, null, settings.getUsernameKey(), settings.getPasswordKey(),
					beanFactory.getBean(LeaseScheduler.class));
			pools.setStaticCredential(settings.isStatic());
			return pools;
		});
		registry.registerBeanDefinition(refresherName(lease), refresher);
		RootBeanDefinition consumer = new RootBeanDefinition(LeaseConsumer.class);
		consumer.setInstanceSupplier(
				() -> new LeaseConsumer(lease, beanFactory.getBean(refresherName(lease), PoolRefresher.class)));
		registry.registerBeanDefinition(refresherName(lease) + "Consumer", consumer);
	}

	/**
	 * Return the bean name of the refresher of a lease: {@code reports-db} →
	 * {@code reportsDbPoolRefresher}.
	 */
	static String refresherName(String lease) {
		String renewer = LeaseRenewerRegistrar.beanName(lease);
		return renewer.substring(0, renewer.length() - "LeaseRenewer".length()) + "PoolRefresher";
	}

	/**
	 * Return the leases that name a pool bean, by the bean's name.
	 * @param leases the declared leases
	 * @return the lease's name by pool bean name
	 */
	static Map<String, String> leasesByDataSource(Map<String, Lease> leases) {
		Map<String, String> byDataSource = new java.util.LinkedHashMap<>();
		leases.forEach((name, lease) -> {
			String dataSource = lease.dataSourceBean();
			if (dataSource != null) {
				byDataSource.put(dataSource, name);
			}
		});
		return byDataSource;
	}

}
