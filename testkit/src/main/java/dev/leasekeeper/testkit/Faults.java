package dev.leasekeeper.testkit;

import java.time.Duration;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The faults a simulator answers with: sealed, rate-limited paths and latency. (An outage
 * is not answered at all: the simulator closes its listening socket.)
 */
final class Faults {

	private volatile boolean sealed;

	private volatile @Nullable Pattern rateLimited;

	private volatile Function<String, Duration> latency = (path) -> Duration.ZERO;

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
