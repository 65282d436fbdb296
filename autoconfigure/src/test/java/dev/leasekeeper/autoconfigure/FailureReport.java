package dev.leasekeeper.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

/**
 * The report a user reads when start-up fails: Spring Boot's failure analyzers applied to
 * the failure, in the order Boot applies them, with the failed context's environment. Add
 * it to a runner with {@code withInitializer}, then {@link #of(Throwable)}.
 */
public final class FailureReport implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	private @Nullable ConfigurableApplicationContext context;

	@Override
	public void initialize(ConfigurableApplicationContext applicationContext) {
		this.context = applicationContext;
	}

	/**
	 * Return the report of a start-up failure: the first analysis's description and
	 * action.
	 * @param failure the start-up failure
	 * @return the report
	 * @throws AssertionError if no analyzer explains the failure
	 */
	public String of(Throwable failure) {
		if (this.context == null) {
			throw new IllegalStateException("FailureReport was not added to the runner with withInitializer");
		}
		ArgumentResolver arguments = ArgumentResolver.of(BeanFactory.class, this.context.getBeanFactory())
			.and(Environment.class, this.context.getEnvironment());
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
			.load(FailureAnalyzer.class, arguments);
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis.getDescription() + "\n" + analysis.getAction();
			}
		}
		throw new AssertionError("No failure analyzer explains " + failure);
	}

}
