package dev.leasekeeper.autoconfigure;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.FollowedToken;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.vault.authentication.AuthenticationEventPublisher;
import org.springframework.vault.authentication.SessionManager;
import org.springframework.vault.authentication.LoginToken;
import org.springframework.vault.authentication.event.AfterLoginEvent;
import org.springframework.vault.authentication.event.AfterLoginTokenRenewedEvent;
import org.springframework.vault.authentication.event.LoginTokenExpiredEvent;
import org.springframework.vault.support.VaultToken;

/**
 * When the application's own {@link SessionManager} renews the token (Spring Vault's
 * {@code LifecycleAwareSessionManager}, Spring Cloud Vault), Leasekeeper does not renew
 * it too: it follows that session manager's authentication events into a
 * {@link FollowedToken}, so that each secret lease ends no later than the token and is
 * obtained again under each new token (the leases of the old token die with it), at
 * instants spread over the time the old token has left.
 *
 * @author Leasekeeper
 */
final class SessionManagerFollower implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(SessionManagerFollower.class);

	private final ListableBeanFactory beanFactory;

	private final FollowedToken token;

	SessionManagerFollower(ListableBeanFactory beanFactory, FollowedToken token) {
		this.beanFactory = beanFactory;
		this.token = token;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.beanFactory.getBeansOfType(SessionManager.class).forEach((name, sessionManager) -> {
			if (sessionManager instanceof AuthenticationEventPublisher publisher) {
				// registered once the leases hold their first grants: every login heard
				// from now on is a new token
				publisher.addAuthenticationListener((event) -> {
					if (event instanceof AfterLoginEvent) {
						logger.info("Session manager '" + name + "' logged in again");
						this.token.loggedIn(ttl(event.getSource()));
					}
					else if (event instanceof AfterLoginTokenRenewedEvent) {
						this.token.renewed(ttl(event.getSource()));
					}
					else if (event instanceof LoginTokenExpiredEvent) {
						this.token.expiring(sessionManager::getSessionToken);
					}
				});
			}
		});
		this.token.lookUp();
	}

	/**
	 * The time to live a login or renewal granted, or {@code null} if it does not expire.
	 */
	private static @Nullable Duration ttl(VaultToken token) {
		if (token instanceof LoginToken login && !login.getLeaseDuration().isZero()) {
			return login.getLeaseDuration();
		}
		return null;
	}

}
