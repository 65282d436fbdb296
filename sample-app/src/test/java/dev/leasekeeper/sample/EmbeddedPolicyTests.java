package dev.leasekeeper.sample;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded Vault gives the sample the policy README tells an operator to write for a
 * real Vault, and nothing broader: what works embedded works there.
 */
class EmbeddedPolicyTests {

	@Test
	void theEmbeddedPolicyIsTheOneReadmeWrites() throws Exception {
		String readme = Files.readString(Path.of("..", "README.md"));
		String start = "vault policy write sample-app - <<'HCL'\n";
		int from = readme.indexOf(start);
		assertThat(from).as("README's policy block").isNotNegative();
		String policy = readme.substring(from + start.length(), readme.indexOf("HCL\n", from + start.length()));
		assertThat(EmbeddedInfrastructure.Running.POLICY).isEqualTo(policy);
	}

}
