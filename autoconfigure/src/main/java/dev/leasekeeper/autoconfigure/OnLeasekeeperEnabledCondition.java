package dev.leasekeeper.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless {@code leasekeeper.enabled} is {@code false}; a value that is neither
 * {@code true} nor {@code false} stops start-up instead of switching Leasekeeper off
 * silently.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
final class OnLeasekeeperEnabledCondition extends SpringBootCondition {

	static final String PROPERTY = "leasekeeper.enabled";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		return isEnabled(context.getEnvironment().getProperty(PROPERTY)) ? ConditionOutcome.match(PROPERTY + " is true")
				: ConditionOutcome.noMatch(PROPERTY + " is false");
	}

	static boolean isEnabled(@Nullable String value) {
		if (value == null || value.strip().equalsIgnoreCase("true")) {
			return true;
		}
		if (value.strip().equalsIgnoreCase("false")) {
			return false;
		}
		throw new InvalidConfigurationPropertyValueException(PROPERTY, value, "must be true or false");
	}

}
