package dev.leasekeeper.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.leasekeeper.core.LeaseRegistry;
import dev.leasekeeper.core.RotationCause;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.vault.authentication.AuthenticationEventPublisher;
import org.springframework.vault.authentication.SessionManager;
import org.springframework.vault.authentication.event.AfterLoginEvent;

/**
 * When the application's own {@link SessionManager} renews the token (Spring Vault's
 * {@code LifecycleAwareSessionManager}, Spring Cloud Vault), Leasekeeper does not renew
 * it too: it follows that session manager's login events and obtains its secret leases
 * again under each new token, since the leases of the old token die with it.
 *
 * @author Leasekeeper
 */
final class SessionManagerFollower implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(SessionManagerFollower.class);

	private final ListableBeanFactory beanFactory;

	private final LeaseRegistry registry;

	SessionManagerFollower(ListableBeanFactory beanFactory, LeaseRegistry registry) {
		this.beanFactory = beanFactory;
		this.registry = registry;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.beanFactory.getBeansOfType(SessionManager.class).forEach((name, sessionManager) -> {
			if (sessionManager instanceof AuthenticationEventPublisher publisher) {
				// registered once the leases hold their first grants: every login heard
				// from now on is a new token
				publisher.addAuthenticationListener((event) -> {
					if (event instanceof AfterLoginEvent) {
						logger.info("Session manager '" + name + "' logged in again: obtaining every lease anew");
						this.registry.all().forEach((lease) -> lease.rotateNow(RotationCause.TOKEN));
					}
				});
			}
		});
	}

}
