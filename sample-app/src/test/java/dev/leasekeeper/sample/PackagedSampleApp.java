package dev.leasekeeper.sample;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample jar as a real process on the {@code vault} profile, pointed at an
 * embedded simulator and PostgreSQL, with its output collected.
 */
final class PackagedSampleApp implements AutoCloseable {

	final Process process;

	final List<String> output = Collections.synchronizedList(new ArrayList<>());

	private final Thread reader;

	private PackagedSampleApp(Process process) {
		this.process = process;
		this.reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				lines.lines().forEach(this.output::add);
			}
			catch (Exception ex) {
				// the process ended
			}
		});
		this.reader.start();
	}

	static PackagedSampleApp start(EmbeddedInfrastructure.Running infrastructure) throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar", "target/leasekeeper-sample-app-0.1.0-SNAPSHOT-exec.jar"));
		assertThat(jar).exists();
		ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-jar", jar.toString(), "--spring.profiles.active=vault", "--server.port=0", "--sample.https.port=0")
			.redirectErrorStream(true);
		builder.environment().put("VAULT_ADDR", infrastructure.vault().uri().toString());
		builder.environment().put("VAULT_ROLE_ID", EmbeddedInfrastructure.ROLE_ID);
		builder.environment()
			.put("VAULT_SECRET_ID", (String) infrastructure.properties().get("leasekeeper.vault.app-role.secret-id"));
		builder.environment().put("DATABASE_URL", infrastructure.jdbcUrl());
		return new PackagedSampleApp(builder.start());
	}

	/** Keep what the process printed in {@code target/<name>}. */
	void saveOutput(String name) throws Exception {
		this.reader.join(5_000);
		// the process may still print: write what it printed so far, copied under the
		// list's lock
		List<String> printed;
		synchronized (this.output) {
			printed = new ArrayList<>(this.output);
		}
		Files.write(Path.of("target", name), printed);
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
	}

}
