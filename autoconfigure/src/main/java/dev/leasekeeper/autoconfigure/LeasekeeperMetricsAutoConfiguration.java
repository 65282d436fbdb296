package dev.leasekeeper.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.metrics.CertificateMetrics;
import dev.leasekeeper.metrics.LeaseMetrics;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Leasekeeper's Micrometer meters ({@link LeaseMetrics}), bound by
 * Boot to its {@link MeterRegistry}; {@code management.metrics.enable.leasekeeper=false}
 * turns them off.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@AutoConfiguration(after = LeasekeeperAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(LeaseRenewerFactory.class)
public final class LeasekeeperMetricsAutoConfiguration {

	@Bean
	LeaseMetrics leasekeeperMetrics(LeasekeeperProperties properties, BeanFactory beanFactory,
			LeaseScheduler scheduler) {
		Map<String, Supplier<LeaseSnapshot>> leases = new LinkedHashMap<>();
		if (beanFactory.containsBean(LeaseRenewerRegistrar.TOKEN_RENEWER)) {
			leases.put("vault-token", renewer(beanFactory, LeaseRenewerRegistrar.TOKEN_RENEWER));
		}
		for (String name : properties.getLeases().keySet()) {
			leases.put(name, renewer(beanFactory, LeaseRenewerRegistrar.beanName(name)));
		}
		for (String name : properties.getCertificates().keySet()) {
			leases.put(name, renewer(beanFactory, LeaseRenewerRegistrar.certificateBeanName(name)));
		}
		return new LeaseMetrics(leases, scheduler::now);
	}

	@Bean
	CertificateMetrics leasekeeperCertificateMetrics(LeasekeeperProperties properties, BeanFactory beanFactory,
			LeaseScheduler scheduler, Certificates certificates) {
		Map<String, Supplier<LeaseSnapshot>> leases = new LinkedHashMap<>();
		for (String name : properties.getCertificates().keySet()) {
			leases.put(name, renewer(beanFactory, LeaseRenewerRegistrar.certificateBeanName(name)));
		}
		return new CertificateMetrics(leases, (name) -> certificates.listener(name).getReissues(), scheduler::now);
	}

	@Bean
	LeaseListenerProvider leasekeeperMetricsListeners(LeaseMetrics metrics) {
		return new InlineLeaseListenerProvider(metrics::listenerFor);
	}

	private static Supplier<LeaseSnapshot> renewer(BeanFactory beanFactory, String beanName) {
		// read when a gauge is read: the renewer exists by then
		return () -> beanFactory.getBean(beanName, LeaseRenewer.class).current();
	}

}
