package dev.leasekeeper.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.leasekeeper.testkit.VaultSimulatorExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.FileSystemResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every property, with every kind of bad value that applies to its type, stops start-up
 * with the failure report Spring Boot prints: it names the property, the value and where
 * the value was set (file and line). The cases are generated from the property list
 * below, which {@link #everyDocumentedPropertyIsCovered} keeps equal to the configuration
 * metadata.
 */
class HostilePropertyTests {

	@RegisterExtension
	static VaultSimulatorExtension vault = VaultSimulatorExtension.builder()
		.configure((builder) -> builder.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1)))
		.build();

	/** Fractions that may be zero. */
	private static final Set<String> ZERO_FRACTION_ALLOWED = Set.of("first-renewal-spread", "jitter", "retry.jitter");

	/** Durations that may be zero. */
	private static final Set<String> ZERO_DURATION_ALLOWED = Set.of("expiry-buffer");

	/** The renewal settings a lease, the token and the defaults share. */
	static final List<String> POLICY_FRACTIONS = List.of("renew-at", "first-renewal-spread", "jitter", "retry.jitter");

	static final List<String> POLICY_DURATIONS = List.of("expiry-buffer", "attempt-timeout", "retry.initial-interval",
			"retry.max-interval");

	static final List<String> POLICY_FLAGS = List.of("revoke-on-shutdown", "revoke-replaced");

	static final List<String> TOP_DURATIONS = List.of("leasekeeper.startup-timeout", "leasekeeper.shutdown-timeout",
			"leasekeeper.vault.connection-timeout");

	static final List<String> TOP_FLAGS = List.of("leasekeeper.enabled", "leasekeeper.fail-fast");

	private static final String LEASE = "leasekeeper.leases.orders-db";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeasekeeperAutoConfiguration.class));

	static List<Case> cases() {
		List<Case> cases = new ArrayList<>();
		for (String prefix : List.of("leasekeeper.defaults", "leasekeeper.token", LEASE)) {
			for (String setting : POLICY_FRACTIONS) {
				String property = prefix + "." + setting;
				cases.add(new Case("negative", property, "-0.1"));
				if (!ZERO_FRACTION_ALLOWED.contains(setting)) {
					cases.add(new Case("zero", property, "0"));
				}
				cases.add(new Case("fraction >= 1", property, setting.equals("retry.jitter") ? "1" : "1.5"));
				cases.add(new Case("not a number", property, "lots"));
			}
			String multiplier = prefix + ".retry.multiplier";
			cases.add(new Case("negative", multiplier, "-2"));
			cases.add(new Case("zero", multiplier, "0"));
			cases.add(new Case("absurd", multiplier, "1000"));
			cases.add(new Case("not a number", multiplier, "double"));
			for (String setting : POLICY_DURATIONS) {
				durationCases(cases, prefix + "." + setting, ZERO_DURATION_ALLOWED.contains(setting));
			}
			for (String setting : POLICY_FLAGS) {
				cases.add(new Case("not a boolean", prefix + "." + setting, "perhaps"));
			}
			cases.add(new Case("unknown enum", prefix + ".on-lost", "retry-forever"));
		}
		durationCases(cases, "leasekeeper.token.increment", false);
		durationCases(cases, LEASE + ".increment", false);
		durationCases(cases, LEASE + ".max-ttl", false);
		cases.add(
				new Case("on a static role", LEASE + ".max-ttl", "24h", LEASE + ".path=database/static-creds/billing"));
		cases.add(new Case("unknown enum", LEASE + ".on-ceiling", "sometimes"));
		cases.add(new Case("unknown enum", LEASE + ".kind", "sometimes"));
		cases.add(new Case("static for a dynamic path", LEASE + ".kind", "static"));
		cases.add(new Case("negative", LEASE + ".refresh-spread", "-1s"));
		cases.add(new Case("not a duration", LEASE + ".refresh-spread", "soon"));
		cases.add(new Case("no such pool bean", LEASE + ".datasource", "perhaps"));
		cases.add(new Case("empty", LEASE + ".username-key", ""));
		cases.add(new Case("empty", LEASE + ".password-key", ""));
		cases.add(new Case("empty path", LEASE + ".path", ""));
		cases.add(new Case("blank path", LEASE + ".path", "  "));
		for (String property : TOP_DURATIONS) {
			durationCases(cases, property, false);
		}
		for (String property : TOP_FLAGS) {
			cases.add(new Case("not a boolean", property, "perhaps"));
		}
		cases.add(new Case("zero", "leasekeeper.io.threads", "0"));
		cases.add(new Case("negative", "leasekeeper.io.threads", "-4"));
		cases.add(new Case("not a number", "leasekeeper.io.threads", "many"));
		cases.add(new Case("unknown enum", "leasekeeper.vault.authentication", "kerberos"));
		cases.add(new Case("not a URI", "leasekeeper.vault.uri", "http://vault:port:8200"));
		cases.add(new Case("empty", "leasekeeper.vault.token", ""));
		cases.add(new Case("empty", "leasekeeper.vault.app-role.role-id", "",
				"leasekeeper.vault.authentication=approle", "leasekeeper.vault.app-role.secret-id=s"));
		cases.add(new Case("empty", "leasekeeper.vault.app-role.path", "", "leasekeeper.vault.authentication=approle",
				"leasekeeper.vault.app-role.role-id=r", "leasekeeper.vault.app-role.secret-id=s"));
		String tokenFile = "leasekeeper.vault.kubernetes.service-account-token-file=" + serviceAccountTokenFile();
		cases.add(new Case("empty", "leasekeeper.vault.kubernetes.role", "",
				"leasekeeper.vault.authentication=kubernetes", tokenFile));
		cases.add(new Case("empty", "leasekeeper.vault.kubernetes.path", "",
				"leasekeeper.vault.authentication=kubernetes", "leasekeeper.vault.kubernetes.role=orders", tokenFile));
		cases.add(new Case("no such file", "leasekeeper.vault.kubernetes.service-account-token-file",
				"/nonexistent/serviceaccount/token", "leasekeeper.vault.authentication=kubernetes",
				"leasekeeper.vault.kubernetes.role=orders"));
		cases.add(new Case("empty", "leasekeeper.vault.userpass.username", "",
				"leasekeeper.vault.authentication=userpass", "leasekeeper.vault.userpass.password=p"));
		cases.add(new Case("empty", "leasekeeper.vault.userpass.password", "",
				"leasekeeper.vault.authentication=userpass", "leasekeeper.vault.userpass.username=orders"));
		cases.add(new Case("empty", "leasekeeper.vault.userpass.path", "", "leasekeeper.vault.authentication=userpass",
				"leasekeeper.vault.userpass.username=orders", "leasekeeper.vault.userpass.password=p"));
		cases.add(new Case("blank", "leasekeeper.vault.ssl-bundle", " "));
		cases.add(new Case("no such bundle", "leasekeeper.vault.ssl-bundle", "nowhere"));
		cases.add(new Case("empty", "leasekeeper.vault.cert.path", "", "leasekeeper.vault.authentication=cert",
				"leasekeeper.vault.ssl-bundle=vault", "leasekeeper.vault.uri=https://127.0.0.1:8200"));
		cases.add(new Case("certificates need Vault first", "leasekeeper.vault.ssl-bundle", "vault",
				"leasekeeper.certificates.web.path=pki/issue/web",
				"leasekeeper.certificates.web.common-name=orders.example.test"));
		cases.add(new Case("empty", "leasekeeper.vault.cubbyhole.wrapped-token", "",
				"leasekeeper.vault.authentication=cubbyhole"));
		cases.add(new Case("empty", "leasekeeper.vault.github.token", "", "leasekeeper.vault.authentication=github"));
		cases.add(new Case("empty", "leasekeeper.vault.github.path", "", "leasekeeper.vault.authentication=github",
				"leasekeeper.vault.github.token=ghp_x"));
		String jwtFile = "leasekeeper.vault.jwt.token-file=" + serviceAccountTokenFile();
		cases.add(new Case("empty", "leasekeeper.vault.jwt.role", "", "leasekeeper.vault.authentication=jwt", jwtFile));
		cases.add(new Case("empty", "leasekeeper.vault.jwt.path", "", "leasekeeper.vault.authentication=jwt",
				"leasekeeper.vault.jwt.role=orders", jwtFile));
		cases.add(new Case("no such file", "leasekeeper.vault.jwt.token-file", "/nonexistent/identity/jwt",
				"leasekeeper.vault.authentication=jwt", "leasekeeper.vault.jwt.role=orders"));
		cases.add(new Case("empty, and no file", "leasekeeper.vault.jwt.token", "",
				"leasekeeper.vault.authentication=jwt", "leasekeeper.vault.jwt.role=orders"));
		cases.add(new Case("bad lease name", "leasekeeper.leases.Orders_DB", "Orders_DB",
				"leasekeeper.leases.Orders_DB.path=database/creds/other"));
		cases.add(new Case("one path declared twice", "leasekeeper.leases.again.path", "database/creds/orders"));
		String certificate = "leasekeeper.certificates.web";
		String[] valid = { certificate + ".path=pki/issue/web", certificate + ".common-name=orders.example.test" };
		cases.add(new Case("not an issuing path", certificate + ".path", "pki/sign/web", valid));
		cases.add(new Case("empty path", certificate + ".path", "", valid));
		cases.add(new Case("empty", certificate + ".common-name", "", valid));
		cases.add(new Case("not an IP address", certificate + ".ip-sans", "localhost", valid));
		cases.add(new Case("blank", certificate + ".alt-names", " ,api.example.test", valid));
		cases.add(new Case("blank", certificate + ".ssl-bundle", " ", valid));
		cases.add(new Case("fraction >= 1", certificate + ".renew-at", "1.5", valid));
		for (String kind : List.of("-1s", "0s", "soon")) {
			cases.add(new Case("bad validity", certificate + ".ttl", kind, valid));
		}
		cases.add(new Case("a lease's name", "leasekeeper.certificates.orders-db", "orders-db",
				"leasekeeper.certificates.orders-db.path=pki/issue/web",
				"leasekeeper.certificates.orders-db.common-name=orders.example.test"));
		cases.add(new Case("one bundle, two certificates", "leasekeeper.certificates.api.ssl-bundle", "web",
				certificate + ".path=pki/issue/web", certificate + ".common-name=orders.example.test",
				"leasekeeper.certificates.api.path=pki/issue/web",
				"leasekeeper.certificates.api.common-name=api.example.test"));
		cases.add(new Case("datasource: true on two leases", "leasekeeper.leases.other.datasource", "true",
				LEASE + ".datasource=true", "leasekeeper.leases.other.path=database/creds/other"));
		// fleet scope
		String grouped = LEASE + ".sharing=group";
		String tokenRole = "leasekeeper.fleet.token-role=leasekeeper-orders";
		cases.add(new Case("unknown enum", LEASE + ".sharing", "everyone"));
		cases.add(new Case("empty", "leasekeeper.fleet.token-role", "", grouped, "spring.application.name=orders"));
		cases.add(new Case("no group and no application name", "leasekeeper.fleet.group", "", grouped, tokenRole));
		cases.add(new Case("not a path segment", "leasekeeper.fleet.group", "orders/eu", grouped, tokenRole));
		cases.add(new Case("not a data path", "leasekeeper.fleet.kv-path", "secret/leasekeeper"));
		cases.add(new Case("empty", "leasekeeper.fleet.kv-path", ""));
		durationCases(cases, "leasekeeper.fleet.read-spread", false);
		durationCases(cases, "leasekeeper.fleet.failover-window", false);
		durationCases(cases, "leasekeeper.fleet.lock.time-to-live", false);
		cases.add(new Case("too short", "leasekeeper.fleet.lock.time-to-live", "100ms"));
		cases.add(new Case("not a JDBC URL", "leasekeeper.fleet.lock.url", "postgresql://db:5432/app"));
		cases.add(new Case("blank", "leasekeeper.fleet.lock.username", " "));
		cases.add(new Case("no such lease", "leasekeeper.fleet.lock.lease", "locks", grouped, tokenRole,
				"spring.application.name=orders"));
		cases.add(new Case("the group's own lease", "leasekeeper.fleet.lock.lease", "orders-db", grouped, tokenRole,
				"spring.application.name=orders"));
		return cases;
	}

	/** A readable stand-in for the pod's service account token. */
	private static String serviceAccountTokenFile() {
		try {
			java.nio.file.Path file = java.nio.file.Files.createTempFile("serviceaccount", ".token");
			java.nio.file.Files.writeString(file, "a.b.c");
			file.toFile().deleteOnExit();
			return file.toString();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static void durationCases(List<Case> cases, String property, boolean zeroAllowed) {
		cases.add(new Case("negative", property, "-1s"));
		if (!zeroAllowed) {
			cases.add(new Case("zero", property, "0s"));
		}
		cases.add(new Case("not a duration", property, "soon"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("cases")
	void aBadValueStopsStartUpNamingThePropertyTheValueAndWhereItWasSet(Case bad, @TempDir Path directory)
			throws IOException {
		// the bad value comes from a file, as in an application.properties, so that the
		// report can say on which line it is
		Path file = directory.resolve("hostile.properties");
		Files.write(file, bad.fileLines());
		PropertySource<?> hostile = new PropertiesPropertySourceLoader().load("hostile", new FileSystemResource(file))
			.get(0);
		FailureReport report = new FailureReport();
		this.runner.withPropertyValues(vault.propertyValues())
			.withPropertyValues(LEASE + ".path=database/creds/orders")
			.withPropertyValues(bad.others())
			.withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(hostile))
			.withInitializer(report)
			.run((context) -> {
				assertThat(context).hasFailed();
				String text = report.of(context.getStartupFailure());
				assertThat(text).contains(bad.property());
				if (!bad.value().isBlank()) {
					assertThat(text).containsAnyOf(bad.value().trim(), asDuration(bad.value()));
				}
				assertThat(text).contains("hostile.properties] - ");
			});
	}

	@org.junit.jupiter.api.Test
	void everyDocumentedPropertyIsCovered() throws Exception {
		Set<String> covered = new java.util.TreeSet<>();
		cases().forEach((bad) -> covered.add(bad.property()));
		Set<String> documented = ConfigurationMetadataTests.documentedProperties();
		documented.remove("leasekeeper.leases");
		documented.remove("leasekeeper.certificates");
		documented.removeIf((name) -> !name.startsWith("leasekeeper."));
		// optional: AppRole in pull mode has no secret id
		documented.remove("leasekeeper.vault.app-role.secret-id");
		// optional: without it, every entry that trusts the certificate is tried
		documented.remove("leasekeeper.vault.cert.name");
		// optional: a lock's database user may have no password
		documented.remove("leasekeeper.fleet.lock.password");
		assertThat(covered).containsAll(documented);
	}

	private static String asDuration(String value) {
		try {
			return DurationStyle.detectAndParse(value).toString();
		}
		catch (IllegalArgumentException ex) {
			return value;
		}
	}

	record Case(String kind, String property, String value, String... others) {

		/**
		 * Return what the file holds: the bad value, or, for a bad name, the entry's
		 * properties.
		 */
		List<String> fileLines() {
			List<String> entry = Arrays.stream(this.others)
				.filter((other) -> other.startsWith(this.property + "."))
				.toList();
			return entry.isEmpty() ? List.of(this.property + "=" + this.value) : entry;
		}

		@Override
		public String toString() {
			return this.property + " = '" + this.value + "' (" + this.kind + ")";
		}

	}

}
