package dev.leasekeeper.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's {@code application.yml} works as written.
 */
class ReadmeSnippetTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1)))
		.build();

	@Test
	void theReadmesApplicationYmlObtainsTheLease() throws Exception {
		String readme = Files.readString(Path.of("../README.md"));
		Matcher yaml = Pattern.compile("## Using the starter.*?```yaml\\n(.*?)```", Pattern.DOTALL).matcher(readme);
		assertThat(yaml.find()).as("the README's application.yml").isTrue();
		YamlPropertiesFactoryBean factory = new YamlPropertiesFactoryBean();
		factory.setResources(new ByteArrayResource(yaml.group(1).getBytes()));
		Properties properties = factory.getObject();
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class))
			.withPropertyValues("VAULT_ADDR=" + vault.simulator().uri(),
					"VAULT_TOKEN=" + vault.simulator().rootToken());
		for (String name : properties.stringPropertyNames()) {
			runner = runner.withPropertyValues(name + "=" + properties.getProperty(name));
		}
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("ordersDbLeaseRenewer", LeaseRenewer.class).current().generation()).isEqualTo(1);
		});
	}

}
