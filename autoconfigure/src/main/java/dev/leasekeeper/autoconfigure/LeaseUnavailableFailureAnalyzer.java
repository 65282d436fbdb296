package dev.leasekeeper.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link LeaseUnavailableException}.
 *
 * @author Leasekeeper
 */
class LeaseUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<LeaseUnavailableException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LeaseUnavailableException cause) {
		return new FailureAnalysis(cause.getMessage(),
				"Check that Vault is reachable at leasekeeper.vault.uri, that the token or AppRole may read '"
						+ cause.getPath() + "', and that the path is right; or set leasekeeper.fail-fast=false"
						+ " to start without the lease and keep trying.",
				cause);
	}

}
