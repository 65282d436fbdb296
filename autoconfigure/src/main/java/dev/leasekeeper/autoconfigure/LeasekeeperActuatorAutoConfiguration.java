package dev.leasekeeper.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.leasekeeper.actuate.LeaseActivity;
import dev.leasekeeper.actuate.LeasesEndpoint;
import dev.leasekeeper.actuate.LeasesHealthIndicator;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseScheduler;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@code leases} actuator endpoint and the {@code leasekeeper}
 * health indicator.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
@AutoConfiguration(after = LeasekeeperAutoConfiguration.class)
@ConditionalOnBean(LeaseRenewerFactory.class)
public final class LeasekeeperActuatorAutoConfiguration {

	@Bean
	LeaseActivity leasekeeperActivity(LeaseScheduler scheduler) {
		return new LeaseActivity(scheduler::now);
	}

	@Bean
	LeaseListenerProvider leasekeeperActivityListeners(LeaseActivity activity) {
		return new InlineLeaseListenerProvider(activity::listenerFor);
	}

	static Map<String, LeaseRenewer> byName(ObjectProvider<ManagedLeaseRenewer> renewers) {
		Map<String, LeaseRenewer> leases = new LinkedHashMap<>();
		renewers.orderedStream().forEach((renewer) -> leases.put(renewer.getName(), renewer));
		return leases;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Endpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeasesEndpoint leasesEndpoint(ObjectProvider<ManagedLeaseRenewer> renewers, LeaseActivity activity) {
			return new LeasesEndpoint(byName(renewers), activity);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "leasekeeperHealthIndicator")
		LeasesHealthIndicator leasekeeperHealthIndicator(ObjectProvider<ManagedLeaseRenewer> renewers,
				LeaseActivity activity, LeaseScheduler scheduler) {
			return new LeasesHealthIndicator(byName(renewers), activity, scheduler::now);
		}

	}

}
