package dev.leasekeeper.autoconfigure;

import org.springframework.vault.core.VaultOperations;

/**
 * Makes the renewer of a lease declared with {@code sharing: group}: present only with
 * fleet scope's auto-configuration, so that nothing else needs Spring Integration.
 *
 * @author Leasekeeper
 */
interface GroupLeaseRenewers {

	/**
	 * Make the renewer of a group lease: this instance's view of the group's grant.
	 * @param name the lease's name
	 * @param vault Vault, with this instance's session
	 * @param factory the factory of renewers
	 * @return the renewer
	 */
	ManagedLeaseRenewer renewer(String name, VaultOperations vault, LeaseRenewerFactory factory);

}
