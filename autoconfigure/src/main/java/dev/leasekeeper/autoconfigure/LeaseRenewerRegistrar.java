package dev.leasekeeper.autoconfigure;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Certificate;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;
import dev.leasekeeper.core.FollowedToken;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.vault.core.VaultOperations;

/**
 * Registers one {@code <leaseName>LeaseRenewer} bean per lease declared under
 * {@code leasekeeper.leases}, and one {@code <name>CertificateRenewer} per certificate
 * declared under {@code leasekeeper.certificates}.
 *
 * @author Leasekeeper
 */
final class LeaseRenewerRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

	static final String TOKEN_RENEWER = "vaultTokenLeaseRenewer";

	private @Nullable Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		Map<String, Lease> leases = Binder.get(this.environment)
			.bind("leasekeeper.leases", Bindable.mapOf(String.class, Lease.class))
			.orElse(Map.of());
		BeanFactory beanFactory = (BeanFactory) registry;
		for (Map.Entry<String, Lease> entry : leases.entrySet()) {
			String name = entry.getKey();
			RootBeanDefinition definition = new RootBeanDefinition(ManagedLeaseRenewer.class);
			definition.setInstanceSupplier(() -> create(beanFactory, name));
			String dataSource = entry.getValue().dataSourceBean();
			if (dataSource != null) {
				// the application's pool is built first, so that its settings are known
				// when the lease's first grant makes the first pool
				definition.setDependsOn(dataSource);
				NamedDataSources.register(registry, name, entry.getValue(), dataSource);
			}
			registry.registerBeanDefinition(beanName(name), definition);
		}
		Map<String, Certificate> certificates = Binder.get(this.environment)
			.bind("leasekeeper.certificates", Bindable.mapOf(String.class, Certificate.class))
			.orElse(Map.of());
		for (String name : certificates.keySet()) {
			RootBeanDefinition definition = new RootBeanDefinition(ManagedLeaseRenewer.class);
			definition.setInstanceSupplier(() -> certificate(beanFactory, name));
			registry.registerBeanDefinition(certificateBeanName(name), definition);
		}
	}

	private static ManagedLeaseRenewer certificate(BeanFactory beanFactory, String name) {
		LeaseRenewerFactory factory = beanFactory.getBean(LeaseRenewerFactory.class);
		return factory.certificate(name, beanFactory.getBean(VaultOperations.class),
				beanFactory.getBean(Certificates.class));
	}

	/**
	 * Return the bean name of a certificate's renewer: {@code web} →
	 * {@code webCertificateRenewer}.
	 */
	static String certificateBeanName(String certificateName) {
		String lease = beanName(certificateName);
		return lease.substring(0, lease.length() - "LeaseRenewer".length()) + "CertificateRenewer";
	}

	private static ManagedLeaseRenewer create(BeanFactory beanFactory, String name) {
		LeaseRenewerFactory factory = beanFactory.getBean(LeaseRenewerFactory.class);
		VaultOperations vault = beanFactory.getBean(VaultOperations.class);
		if (factory.isGroupLease(name)) {
			// fleet scope: the group's grant, read from its leader's publication
			return beanFactory.getBean(GroupLeaseRenewers.class).renewer(name, vault, factory);
		}
		ManagedLeaseRenewer token = beanFactory.containsBean(TOKEN_RENEWER)
				? beanFactory.getBean(TOKEN_RENEWER, ManagedLeaseRenewer.class) : null;
		FollowedToken followed = (token == null) ? beanFactory.getBeanProvider(FollowedToken.class).getIfAvailable()
				: null;
		return factory.secretLease(name, vault, token, followed);
	}

	/**
	 * Return the bean name of a lease's renewer: {@code orders-db} →
	 * {@code ordersDbLeaseRenewer}.
	 */
	static String beanName(String leaseName) {
		StringBuilder result = new StringBuilder();
		boolean upper = false;
		for (char c : leaseName.toCharArray()) {
			if (c == '-' || c == '_' || c == '.') {
				upper = result.length() > 0;
			}
			else {
				result.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return result + "LeaseRenewer";
	}

}
