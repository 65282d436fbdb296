package dev.leasekeeper.autoconfigure;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.ReflectionUtils;
import org.springframework.vault.core.lease.SecretLeaseContainer;
import org.springframework.vault.core.lease.domain.RequestedSecret;

/**
 * Exactly one owner per lease: fails start-up when a path Leasekeeper declares is also
 * renewed by a Spring Vault {@link SecretLeaseContainer} (Spring Cloud Vault's
 * {@code secretLeaseContainer}), naming the property to turn off on either side.
 *
 * @author Leasekeeper
 */
final class SingleOwnerVerifier implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(SingleOwnerVerifier.class);

	private final ListableBeanFactory beanFactory;

	private final LeasekeeperProperties properties;

	SingleOwnerVerifier(ListableBeanFactory beanFactory, LeasekeeperProperties properties) {
		this.beanFactory = beanFactory;
		this.properties = properties;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Map<String, SecretLeaseContainer> containers = this.beanFactory.getBeansOfType(SecretLeaseContainer.class);
		containers.forEach((beanName, container) -> {
			for (RequestedSecret secret : requestedSecrets(beanName, container)) {
				this.properties.getLeases().forEach((name, lease) -> verify(name, lease, beanName, secret));
			}
		});
	}

	private void verify(String name, Lease lease, String containerName, RequestedSecret secret) {
		if (lease.getPath() != null && normalize(lease.getPath()).equals(normalize(secret.getPath()))) {
			throw new IllegalStateException("Vault path '" + secret.getPath() + "' is renewed both by Leasekeeper"
					+ " (leasekeeper.leases." + name + ".path) and by Spring Vault's SecretLeaseContainer bean '"
					+ containerName + "': a lease must have exactly one owner. Remove leasekeeper.leases." + name
					+ " (or set leasekeeper.enabled=false), or stop the container from requesting it (for Spring Cloud"
					+ " Vault's database backend: spring.cloud.vault.database.enabled=false).");
		}
	}

	@SuppressWarnings("unchecked")
	private static List<RequestedSecret> requestedSecrets(String beanName, SecretLeaseContainer container) {
		// SecretLeaseContainer exposes no accessor for what it renews
		Field field = ReflectionUtils.findField(SecretLeaseContainer.class, "requestedSecrets");
		if (field == null) {
			logger.warn("Cannot tell which paths SecretLeaseContainer '" + beanName + "' renews; make sure none of"
					+ " them is also declared under leasekeeper.leases");
			return List.of();
		}
		ReflectionUtils.makeAccessible(field);
		return List.copyOf((List<RequestedSecret>) ReflectionUtils.getField(field, container));
	}

	private static String normalize(String path) {
		return path.strip().replaceAll("^/+|/+$", "");
	}

}
