package dev.leasekeeper.autoconfigure;

import java.util.stream.Collectors;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/**
 * Every log line while it is open, Leasekeeper's at DEBUG and everything else at INFO
 * (the tests' logback configuration shows only errors), with their stack traces.
 */
public final class CapturedLogs implements AutoCloseable {

	private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

	private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

	private final Logger leasekeeper = (Logger) LoggerFactory.getLogger("dev.leasekeeper");

	private final Level rootLevel;

	private final Level leasekeeperLevel;

	/**
	 * Start capturing.
	 */
	public CapturedLogs() {
		this.rootLevel = this.root.getLevel();
		this.leasekeeperLevel = this.leasekeeper.getLevel();
		this.logs.start();
		this.root.addAppender(this.logs);
		this.root.setLevel(Level.INFO);
		this.leasekeeper.setLevel(Level.DEBUG);
	}

	/**
	 * Return what was logged so far.
	 * @return every line, with its stack trace
	 */
	public String text() {
		return this.logs.list.stream()
			.map((event) -> event.getLoggerName() + " " + event.getFormattedMessage()
					+ ((event.getThrowableProxy() != null)
							? "\n" + ThrowableProxyUtil.asString(event.getThrowableProxy()) : ""))
			.collect(Collectors.joining("\n"));
	}

	@Override
	public void close() {
		this.root.detachAppender(this.logs);
		this.root.setLevel(this.rootLevel);
		this.leasekeeper.setLevel(this.leasekeeperLevel);
	}

}
