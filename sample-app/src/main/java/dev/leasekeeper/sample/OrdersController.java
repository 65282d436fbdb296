package dev.leasekeeper.sample;

import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small HTTP API over the orders: place one, see what the worker has done.
 */
@RestController
class OrdersController {

	private final OrderWorker worker;

	private final LeaseTimeline timeline;

	OrdersController(OrderWorker worker, LeaseTimeline timeline) {
		this.worker = worker;
		this.timeline = timeline;
	}

	@PostMapping("/api/orders")
	@ResponseStatus(HttpStatus.CREATED)
	Map<String, String> place(@RequestBody Map<String, String> order) {
		String item = order.getOrDefault("item", "");
		if (item.isBlank() || item.length() > 200) {
			throw new IllegalArgumentException("'item' must be 1 to 200 characters");
		}
		this.worker.create(item);
		return Map.of("item", item, "status", "new");
	}

	@GetMapping("/api/orders/stats")
	OrderWorker.Stats stats() {
		return this.worker.stats();
	}

	@GetMapping("/api/timeline")
	LeaseTimeline.View timeline() {
		return this.timeline.view();
	}

}
