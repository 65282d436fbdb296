package dev.leasekeeper.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link InvalidLeasekeeperPropertyException}: the property, the value and
 * what is allowed.
 *
 * @author Leasekeeper
 */
class InvalidLeasekeeperPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLeasekeeperPropertyException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLeasekeeperPropertyException cause) {
		return new FailureAnalysis(
				"Invalid value '" + cause.getValue() + "' for property '" + cause.getProperty() + "': "
						+ cause.getAllowed() + ".",
				"Update '" + cause.getProperty() + "' in your application's configuration.", cause);
	}

}
