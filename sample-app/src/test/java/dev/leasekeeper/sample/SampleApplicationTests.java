package dev.leasekeeper.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import dev.leasekeeper.core.LeaseRegistry;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.testkit.JournalEntry;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample on its embedded default, with TTLs shortened further so that the whole
 * mission happens within a minute: renewals, a ceiling, a rotation with a pool swap and a
 * token re-login, with the worker processing throughout and no failed query; and the
 * dashboard in a real browser.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded.db-ttl=12s", "sample.embedded.db-max-ttl=24s", "sample.embedded.token-ttl=12s",
				"sample.embedded.token-max-ttl=30s", "sample.embedded.cert-ttl=12s", "sample.https.port=0" })
class SampleApplicationTests {

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	@LocalServerPort
	int port;

	@Autowired
	LeaseRegistry registry;

	@Autowired
	OrderWorker worker;

	@Autowired
	LeaseTimeline timeline;

	@Autowired
	EmbeddedInfrastructure.Running infrastructure;

	@Test
	void renewsRotatesAtTheCeilingAndLogsInAgainWhileTheWorkerProcessesWithoutAFailedQuery() {
		LeaseRenewer database = this.registry.get("orders-db").orElseThrow();
		LeaseRenewer token = this.registry.all().get(0);
		assertThat(token.describe()).isEqualTo("auth/token");
		long processedBefore = this.worker.stats().processed();
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			assertThat(events("orders-db", "renewed")).isNotEmpty();
			assertThat(events("orders-db", "ceiling")).isNotEmpty();
			assertThat(events("orders-db", "rotated")).isNotEmpty();
			assertThat(token.current().generation()).isGreaterThanOrEqualTo(2);
		});
		assertThat(database.current().generation()).isGreaterThanOrEqualTo(2);
		// the second AppRole login is what generation 2 of the token is
		List<JournalEntry> logins = this.infrastructure.vault()
			.journal((entry) -> entry.path().equals("auth/approle/login") && entry.status() == 200);
		assertThat(logins).hasSizeGreaterThanOrEqualTo(2);
		OrderWorker.Stats stats = this.worker.stats();
		assertThat(stats.processed()).isGreaterThan(processedBefore + 50);
		assertThat(stats.failedQueries()).as("failed queries").isZero();
	}

	@Autowired
	HttpsConnector https;

	@Test
	void theHttpsConnectorServesTheCertificateLeasekeeperKeepsAndEachReissue() throws Exception {
		LeaseRenewer web = this.registry.get("web").orElseThrow();
		String first = served();
		assertThat(first).isEqualTo(web.current().leaseId());
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(500))
			.until(() -> !served().equals(first));
		assertThat(served()).isEqualTo(web.current().leaseId());
	}

	/** The serial of the certificate served on a new connection, trusting only the CA. */
	private String served() throws Exception {
		java.security.KeyStore trust = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
		trust.load(null, null);
		trust.setCertificateEntry("ca", this.infrastructure.vault().caCertificate());
		javax.net.ssl.TrustManagerFactory trustManagers = javax.net.ssl.TrustManagerFactory
			.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
		trustManagers.init(trust);
		javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
		context.init(null, trustManagers.getTrustManagers(), null);
		java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().sslContext(context).build();
		java.net.http.HttpResponse<String> response = http.send(java.net.http.HttpRequest
			.newBuilder(java.net.URI.create("https://localhost:" + this.https.getLocalPort() + "/api/orders/stats"))
			.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		java.security.cert.X509Certificate certificate = (java.security.cert.X509Certificate) response.sslSession()
			.orElseThrow()
			.getPeerCertificates()[0];
		String hex = certificate.getSerialNumber().toString(16);
		return ((hex.length() % 2 == 1) ? "0" + hex : hex).replaceAll("(..)(?!$)", "$1:");
	}

	@Test
	void theLeasesEndpointIsReadableButItsWriteOperationIsClosedByDefault() throws Exception {
		java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
		java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + this.port + "/actuator/leases/orders-db");
		int generation = this.registry.get("orders-db").orElseThrow().current().generation();
		java.net.http.HttpResponse<String> read = http.send(java.net.http.HttpRequest.newBuilder(uri).build(),
				java.net.http.HttpResponse.BodyHandlers.ofString());
		assertThat(read.statusCode()).isEqualTo(200);
		java.net.http.HttpResponse<String> write = http.send(java.net.http.HttpRequest.newBuilder(uri)
			.header("Content-Type", "application/json")
			.POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"action\":\"rotate\"}"))
			.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
		assertThat(write.statusCode()).isIn(404, 405);
		assertThat(this.registry.get("orders-db").orElseThrow().current().generation()).isEqualTo(generation);
	}

	@Test
	void theDashboardListsTheLeasesAndShowsTheGenerationAdvanceAfterARotation() throws Exception {
		boolean ci = "true".equals(System.getenv("LEASEKEEPER_CI"));
		if (!ci) {
			assumeThat(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER))
				.as("Debian's chromium and chromium-driver (.ci/run installs them)")
				.isTrue();
		}
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-background-networking", "--disable-extensions", "--window-size=1400,1200");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.build();
		WebDriver browser = new ChromeDriver(service, options);
		try {
			browser.get("http://localhost:" + this.port + "/");
			WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
			wait.until((page) -> page.findElements(By.cssSelector("#leases tbody tr[data-lease]")).size() >= 2);
			// the table is redrawn four times a second: read it in one script, not
			// element by element
			@SuppressWarnings("unchecked")
			List<String> shownNames = (List<String>) ((JavascriptExecutor) browser)
				.executeScript("return Array.from(document.querySelectorAll('#leases tbody tr[data-lease] td.name'))"
						+ ".map((cell) => cell.textContent)");
			Set<String> names = Set.copyOf(shownNames);
			assertThat(names).contains("orders-db", "web");
			// the certificate's row shows its serial and its notAfter
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until((page) -> String.valueOf(((JavascriptExecutor) page)
					.executeScript("const c = document.querySelector(\"#leases tr[data-lease='web'] td.certificate\");"
							+ " return c ? c.textContent : null;"))
					.startsWith("serial "));
			int shown = generation(browser);
			LeaseRenewer database = this.registry.get("orders-db").orElseThrow();
			database.rotateNow();
			new WebDriverWait(browser, Duration.ofSeconds(20)).until((page) -> generation(page) > shown);
			assertThat(generation(browser)).isEqualTo(database.current().generation());
			assertThat(cell(browser, "remaining")).endsWith(" s");
			// the chart has drawn the rotation
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until((page) -> !page.findElements(By.cssSelector("#events li.type-rotated")).isEmpty());
			File screenshot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE);
			Path target = Path.of("target", "dashboard.png");
			Files.createDirectories(target.getParent());
			Files.copy(screenshot.toPath(), target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
			assertThat(Files.size(target)).isGreaterThan(10_000);
		}
		finally {
			browser.quit();
		}
	}

	private static int generation(WebDriver page) {
		String text = cell(page, "generation");
		return (text != null) ? Integer.parseInt(text) : 0;
	}

	private static String cell(WebDriver page, String column) {
		return (String) ((JavascriptExecutor) page)
			.executeScript("const cell = document.querySelector(\"#leases tr[data-lease='orders-db'] td." + column
					+ "\");" + " return cell ? cell.textContent : null;");
	}

	private List<LeaseTimeline.Event> events(String lease, String type) {
		return this.timeline.view()
			.events()
			.stream()
			.filter((event) -> event.lease().equals(lease) && event.type().equals(type))
			.toList();
	}

}
