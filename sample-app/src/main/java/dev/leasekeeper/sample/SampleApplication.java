package dev.leasekeeper.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * An order worker whose database credential is a Vault lease kept by Leasekeeper. With no
 * profile it brings its own Vault (the testkit simulator) and PostgreSQL; with the
 * {@code vault} profile it uses real ones.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

	/**
	 * Run the application.
	 * @param args the command line
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
