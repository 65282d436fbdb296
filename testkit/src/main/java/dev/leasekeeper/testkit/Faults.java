package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import org.jspecify.annotations.Nullable;

/**
 * The faults a simulator answers with: sealed, rate-limited paths and latency; and
 * connections that hang. (An outage is not answered at all: the simulator closes its
 * listening socket.)
 */
final class Faults {

	private volatile boolean sealed;

	private volatile @Nullable Pattern rateLimited;

	private volatile Function<String, Duration> latency = (path) -> Duration.ZERO;

	/** The exchanges held unanswered while connections hang, or {@code null}. */
	private @Nullable List<HttpExchange> hung;

	/**
	 * Hold {@code exchange} unanswered if connections hang: it never reaches Vault.
	 * @param exchange the exchange just received
	 * @return whether it is held
	 */
	synchronized boolean hold(HttpExchange exchange) {
		if (this.hung == null) {
			return false;
		}
		this.hung.add(exchange);
		return true;
	}

	synchronized int held() {
		return (this.hung != null) ? this.hung.size() : 0;
	}

	/**
	 * Start or end hanging; at the end, every held connection is closed unanswered.
	 * @param hanging whether connections hang
	 * @return how many requests were held since hanging started (at the end), else 0
	 */
	int setHanging(boolean hanging) {
		List<HttpExchange> released;
		synchronized (this) {
			if (hanging) {
				if (this.hung == null) {
					this.hung = new ArrayList<>();
				}
				return 0;
			}
			released = this.hung;
			this.hung = null;
		}
		if (released == null) {
			return 0;
		}
		// as a network that dropped them: the connection ends without an answer
		released.forEach(HttpExchange::close);
		return released.size();
	}

	boolean isSealed() {
		return this.sealed;
	}

	void setSealed(boolean sealed) {
		this.sealed = sealed;
	}

	boolean isRateLimited(String path) {
		Pattern pattern = this.rateLimited;
		return pattern != null && pattern.matcher(path).matches();
	}

	void setRateLimited(@Nullable Pattern pattern) {
		this.rateLimited = pattern;
	}

	void setLatency(Function<String, Duration> latency) {
		this.latency = latency;
	}

	void delay(String path) {
		Duration delay = this.latency.apply(path);
		if (delay.isZero() || delay.isNegative()) {
			return;
		}
		try {
			// a real server's latency, on the server's own request thread
			Thread.sleep(delay.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
