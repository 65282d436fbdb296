package dev.leasekeeper.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.LeaseRegistry;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.LeaseSnapshot;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The last five minutes of every lease for the dashboard: its remaining TTL sampled each
 * second, and its events. Instants are the engine's, so the page computes remaining times
 * against {@link View#now()} rather than its own clock.
 */
@Component
public class LeaseTimeline {

	private static final int SAMPLES = 300;

	private static final int EVENTS = 200;

	private final LeaseRegistry registry;

	private final LeaseScheduler scheduler;

	private final Map<String, Deque<Sample>> samples = new LinkedHashMap<>();

	private final Deque<Event> events = new ArrayDeque<>();

	LeaseTimeline(LeaseRegistry registry, LeaseScheduler scheduler) {
		this.registry = registry;
		this.scheduler = scheduler;
	}

	@Scheduled(fixedRate = 1000)
	synchronized void sample() {
		for (LeaseRenewer renewer : this.registry.all()) {
			LeaseSnapshot lease = renewer.current();
			Instant now = this.scheduler.now();
			Double remaining = (lease.expiry() != null)
					? Math.max(0, Duration.between(now, lease.expiry()).toMillis() / 1000.0) : null;
			Deque<Sample> series = this.samples.computeIfAbsent(lease.name(), (name) -> new ArrayDeque<>());
			series.addLast(new Sample(now, remaining, lease.generation()));
			if (series.size() > SAMPLES) {
				series.removeFirst();
			}
		}
	}

	synchronized void event(String lease, String type, int generation, String detail) {
		Instant now = this.scheduler.now();
		this.events.addLast(new Event(now, lease, type, generation, detail));
		if (this.events.size() > EVENTS) {
			this.events.removeFirst();
		}
	}

	/**
	 * Return what the dashboard draws.
	 * @return the view
	 */
	public synchronized View view() {
		Instant now = this.scheduler.now();
		Map<String, List<Sample>> series = new LinkedHashMap<>();
		this.samples.forEach((name, values) -> series.put(name, new ArrayList<>(values)));
		return new View(now, series, new ArrayList<>(this.events));
	}

	/**
	 * One sample.
	 *
	 * @param at when
	 * @param remaining seconds left, or {@code null} when nothing is held
	 * @param generation the generation held
	 */
	public record Sample(Instant at, @Nullable Double remaining, int generation) {
	}

	/**
	 * One event.
	 *
	 * @param at when
	 * @param lease the lease's name
	 * @param type renewed, ceiling, rotated or lost
	 * @param generation the generation it concerns
	 * @param detail a line for people
	 */
	public record Event(Instant at, String lease, String type, int generation, String detail) {
	}

	/**
	 * The dashboard's data.
	 *
	 * @param now the engine's present
	 * @param samples each lease's samples
	 * @param events the events, oldest first
	 */
	public record View(Instant now, Map<String, List<Sample>> samples, List<Event> events) {
	}

}
