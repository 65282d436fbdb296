package dev.leasekeeper.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.leasekeeper.testkit.JournalEntry;

import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged jar as a real process with every Leasekeeper default (the {@code vault}
 * profile against a simulator and PostgreSQL this test runs): {@code SIGSTOP} from just
 * before the database lease's renewal until past its expiry, then {@code SIGCONT}. Vault
 * expired the lease meanwhile; the application notices its late timer and is serving a
 * new credential within 5 s.
 */
class SampleApplicationPauseIT {

	private static final String LAST_PROCESSED_BY = "SELECT processed_by FROM orders WHERE status = 'done'"
			+ " ORDER BY processed_at DESC NULLS LAST, id DESC LIMIT 1";

	private static final Pattern PORT = Pattern.compile("Tomcat started on ports? (\\d+)");

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	@Test
	void aProcessStoppedFromBeforeItsRenewalUntilPastTheExpiryHasANewCredentialWithinFiveSecondsOfResuming()
			throws Exception {
		try (EmbeddedInfrastructure.Running infrastructure = EmbeddedInfrastructure.Running
			.start(new StandardEnvironment()); PackagedSampleApp app = PackagedSampleApp.start(infrastructure)) {
			Process process = app.process;
			List<String> output = app.output;
			await().atMost(Duration.ofSeconds(90))
				.until(() -> processedOrders(infrastructure) > 0 || !process.isAlive());
			assertThat(process.isAlive()).as("the application runs: %s", output).isTrue();
			int port = port(output);
			// the first renewal of a grant is spread: wait for one that is at least 2
			// s away
			JsonNode lease = await().atMost(Duration.ofSeconds(60))
				.until(() -> ordersLease(port), (node) -> node != null && "ACTIVE".equals(text(node, "state"))
						&& Instant.parse(text(node, "nextRenewalAt")).isAfter(Instant.now().plusSeconds(2)));
			int generation = lease.get("generation").asInt();
			String userBefore = query(infrastructure, LAST_PROCESSED_BY);
			Instant renewal = Instant.parse(text(lease, "nextRenewalAt"));
			Instant expiry = Instant.parse(text(lease, "expiresAt"));
			await().pollInterval(Duration.ofMillis(20))
				.atMost(Duration.ofSeconds(60))
				.until(() -> Instant.now().isAfter(renewal.minusMillis(500)));
			signal("STOP", process.pid());
			Instant stopped = Instant.now();
			// stopped across the renewal point and past the expiry (Vault expires it)
			await().pollInterval(Duration.ofMillis(50))
				.atMost(Duration.ofSeconds(60))
				.until(() -> Instant.now().isAfter(expiry.plusSeconds(2)));
			signal("CONT", process.pid());
			Instant resumed = Instant.now();
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				JsonNode now = ordersLease(port);
				return now != null && now.get("generation").asInt() > generation && "ACTIVE".equals(text(now, "state"));
			});
			Duration recovery = Duration.between(resumed, Instant.now());
			List<JournalEntry> obtained = infrastructure.vault()
				.journal((entry) -> entry.path().equals("database/creds/orders") && entry.status() == 200
						&& entry.at().isAfter(resumed.minusMillis(100)));
			assertThat(obtained).isNotEmpty();
			// the worker processes orders again, as the new database user
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !userBefore.equals(query(infrastructure, LAST_PROCESSED_BY)));
			app.saveOutput("pause-it.log");
			assertThat(output).anyMatch((line) -> line.contains("late") && line.contains("orders-db"));
			System.out.println("Pause: stopped " + Duration.between(stopped, resumed).toMillis()
					+ " ms; new credential " + recovery.toMillis() + " ms after SIGCONT");
		}
	}

	private JsonNode ordersLease(int port) throws Exception {
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/leases")).build(),
				HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			return null;
		}
		for (JsonNode lease : this.json.readTree(response.body()).get("leases")) {
			if ("orders-db".equals(text(lease, "name"))) {
				return lease;
			}
		}
		return null;
	}

	private static String text(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return (value != null && !value.isNull()) ? value.asString() : null;
	}

	private static int port(List<String> output) {
		synchronized (output) {
			for (String line : output) {
				Matcher matcher = PORT.matcher(line);
				if (matcher.find()) {
					return Integer.parseInt(matcher.group(1));
				}
			}
		}
		throw new AssertionError("no port in the output: " + output);
	}

	private static void signal(String signal, long pid) throws Exception {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
		assertThat(kill.waitFor()).as("kill -%s %d", signal, pid).isZero();
	}

	private static long processedOrders(EmbeddedInfrastructure.Running infrastructure) throws Exception {
		return Long.parseLong(query(infrastructure, "SELECT count(*) FROM orders WHERE status = 'done'"));
	}

	private static String query(EmbeddedInfrastructure.Running infrastructure, String sql) throws Exception {
		try (Connection admin = infrastructure.postgres().getPostgresDatabase().getConnection();
				ResultSet result = admin.createStatement().executeQuery(sql)) {
			result.next();
			return result.getString(1);
		}
	}

}
