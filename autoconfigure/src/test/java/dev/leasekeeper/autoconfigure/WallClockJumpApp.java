package dev.leasekeeper.autoconfigure;

import dev.leasekeeper.event.LeaseEvent;
import dev.leasekeeper.event.LeaseLostEvent;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/**
 * The application {@link FaultMatrixTests} runs as a separate process under libfaketime,
 * so that its wall clock can be jumped: Leasekeeper alone, its properties from the
 * command line, each lease event printed on a line of its own.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration(LeasekeeperAutoConfiguration.class)
public class WallClockJumpApp {

	@EventListener
	void on(LeaseEvent event) {
		String reason = (event instanceof LeaseLostEvent lost) ? " " + lost.getReason() : "";
		System.out.println("EVENT " + event.getClass().getSimpleName() + " " + event.getLeaseName() + " "
				+ event.getGeneration() + reason);
	}

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(WallClockJumpApp.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		ConfigurableApplicationContext context = application.run(args);
		System.out.println("READY");
		context.registerShutdownHook();
	}

}
