package dev.leasekeeper.sample;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The work: orders arrive (one every quarter second here) and are processed in batches,
 * each marked with the database user that processed it, continuously and through every
 * rotation of that user.
 */
@Component
public class OrderWorker {

	private static final Log logger = LogFactory.getLog(OrderWorker.class);

	private final JdbcTemplate jdbc;

	private final AtomicLong created = new AtomicLong();

	private final AtomicLong processed = new AtomicLong();

	private final AtomicLong failed = new AtomicLong();

	private final Counter processedCounter;

	private final Counter failedCounter;

	private volatile String databaseUser = "";

	OrderWorker(JdbcTemplate jdbc, MeterRegistry meters) {
		this.jdbc = jdbc;
		this.processedCounter = Counter.builder("sample.orders.processed")
			.description("Orders processed")
			.register(meters);
		this.failedCounter = Counter.builder("sample.queries.failed")
			.description("Queries of the worker that failed")
			.register(meters);
	}

	/** One order arrives. */
	@Scheduled(fixedRate = 250, initialDelay = 500)
	void receive() {
		query(() -> {
			create("order at " + java.time.Instant.now());
		});
	}

	/** Process what is waiting, at most 20 at a time. */
	@Scheduled(fixedDelay = 200, initialDelay = 500)
	void process() {
		query(() -> {
			List<String> users = this.jdbc.queryForList("""
					UPDATE orders SET status = 'done', processed_at = now(), processed_by = current_user
					WHERE id IN (SELECT id FROM orders WHERE status = 'new' ORDER BY id LIMIT 20
						FOR UPDATE SKIP LOCKED)
					RETURNING processed_by""", String.class);
			this.processed.addAndGet(users.size());
			this.processedCounter.increment(users.size());
			if (!users.isEmpty()) {
				this.databaseUser = users.get(0);
			}
		});
	}

	/**
	 * Create an order.
	 * @param item what is ordered
	 */
	public void create(String item) {
		this.jdbc.update("INSERT INTO orders (item) VALUES (?)", item);
		this.created.incrementAndGet();
	}

	private void query(Runnable work) {
		try {
			work.run();
		}
		catch (DataAccessException ex) {
			this.failed.incrementAndGet();
			this.failedCounter.increment();
			// the message names the table and the user, never the password
			logger.warn("Query failed: " + ex.getMostSpecificCause().getClass().getSimpleName() + ": "
					+ ex.getMostSpecificCause().getMessage());
		}
	}

	/**
	 * Return what the worker has done.
	 * @return the figures
	 */
	public Stats stats() {
		return new Stats(this.created.get(), this.processed.get(), this.failed.get(), this.databaseUser);
	}

	/**
	 * What the worker has done since start-up.
	 *
	 * @param created orders created
	 * @param processed orders processed
	 * @param failedQueries queries that failed
	 * @param databaseUser the database user of the last batch
	 */
	public record Stats(long created, long processed, long failedQueries, String databaseUser) {
	}

}
