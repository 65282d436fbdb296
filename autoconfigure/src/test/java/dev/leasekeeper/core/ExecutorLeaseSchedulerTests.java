package dev.leasekeeper.core;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ExecutorLeaseSchedulerTests {

	@Test
	void allTasksRunOnOneSharedSchedulingThreadAndCallsOnWorkers() throws Exception {
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(2)) {
			Set<String> taskThreads = ConcurrentHashMap.newKeySet();
			CountDownLatch tasks = new CountDownLatch(100);
			for (int i = 0; i < 100; i++) {
				scheduler.schedule(scheduler.now().plusMillis(i % 10), () -> {
					taskThreads.add(Thread.currentThread().getName());
					tasks.countDown();
				});
			}
			assertThat(tasks.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(taskThreads).containsExactly("leasekeeper-scheduler");
			AtomicReference<String> callThread = new AtomicReference<>();
			AtomicReference<String> thenThread = new AtomicReference<>();
			CountDownLatch done = new CountDownLatch(1);
			scheduler.call(() -> {
				callThread.set(Thread.currentThread().getName());
				return "answer";
			}, (result, failure) -> {
				thenThread.set(Thread.currentThread().getName() + ":" + result);
				done.countDown();
			});
			assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(callThread.get()).startsWith("leasekeeper-io-");
			assertThat(thenThread.get()).isEqualTo("leasekeeper-scheduler:answer");
		}
	}

	@Test
	void aTaskThatThrowsDoesNotStopTheSchedulingThread() throws Exception {
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1)) {
			scheduler.schedule(scheduler.now(), () -> {
				throw new IllegalStateException("boom");
			});
			CountDownLatch after = new CountDownLatch(1);
			scheduler.schedule(scheduler.now().plusMillis(5), after::countDown);
			assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void cancelledTasksDoNotRun() throws Exception {
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1)) {
			CountDownLatch cancelledRan = new CountDownLatch(1);
			Cancellable cancellable = scheduler.schedule(scheduler.now().plusMillis(50), cancelledRan::countDown);
			cancellable.cancel();
			CountDownLatch later = new CountDownLatch(1);
			scheduler.schedule(scheduler.now().plusMillis(100), later::countDown);
			assertThat(later.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(cancelledRan.getCount()).isEqualTo(1);
		}
	}

	@Test
	void aTimerReArmedInPlaceRunsOnceAtTheInstantItWasLastArmedAt() throws Exception {
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1)) {
			AtomicInteger runs = new AtomicInteger();
			AtomicReference<java.time.Instant> ranAt = new AtomicReference<>();
			AtomicReference<java.time.Instant> lastArmedAt = new AtomicReference<>();
			CountDownLatch ran = new CountDownLatch(1);
			scheduler.schedule(scheduler.now(), () -> {
				LeaseScheduler.Timer timer = scheduler.timer(() -> {
					runs.incrementAndGet();
					ranAt.set(scheduler.now());
					ran.countDown();
				});
				timer.arm(scheduler.now().plusSeconds(3600));
				timer.arm(scheduler.now().plusMillis(10));
				timer.disarm();
				timer.arm(scheduler.now().plusSeconds(60));
				lastArmedAt.set(scheduler.now().plusMillis(80));
				timer.arm(lastArmedAt.get());
			});
			assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
			CountDownLatch later = new CountDownLatch(1);
			scheduler.schedule(scheduler.now().plusMillis(100), later::countDown);
			assertThat(later.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(runs).hasValue(1);
			assertThat(ranAt.get()).isAfterOrEqualTo(lastArmedAt.get());
		}
	}

	@Test
	void tasksDueAtTheSameInstantRunInTheOrderTheyWereScheduled() throws Exception {
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1)) {
			java.util.List<Integer> order = new java.util.concurrent.CopyOnWriteArrayList<>();
			CountDownLatch done = new CountDownLatch(200);
			java.time.Instant at = scheduler.now().plusMillis(50);
			for (int i = 0; i < 100; i++) {
				int index = i;
				scheduler.schedule(at, () -> {
					order.add(index);
					done.countDown();
				});
			}
			scheduler.schedule(scheduler.now(), () -> {
				// and from the scheduling thread itself, due now
				for (int i = 100; i < 200; i++) {
					int index = i;
					scheduler.schedule(java.time.Instant.MIN, () -> {
						order.add(index);
						done.countDown();
					});
				}
			});
			assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(order.subList(0, 100)).isSorted();
			assertThat(order.subList(100, 200)).isSorted();
			assertThat(order.indexOf(100)).isLessThan(order.indexOf(0));
		}
	}

	@Test
	void thousandsOfTimersArmedMovedAndDisarmedFireInTheOrderOfTheirInstants() throws Exception {
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1)) {
			java.util.List<java.time.Instant> fired = new java.util.ArrayList<>();
			java.util.List<java.time.Instant> expected = new java.util.ArrayList<>();
			CountDownLatch armed = new CountDownLatch(1);
			scheduler.schedule(scheduler.now(), () -> {
				java.util.SplittableRandom random = new java.util.SplittableRandom(42);
				java.time.Instant start = scheduler.now().plusMillis(100);
				for (int i = 0; i < 3000; i++) {
					java.time.Instant[] at = new java.time.Instant[1];
					LeaseScheduler.Timer timer = scheduler.timer(() -> fired.add(at[0]));
					int moves = random.nextInt(4);
					for (int move = 0; move <= moves; move++) {
						at[0] = start.plusNanos(random.nextLong(300_000_000L));
						timer.arm(at[0]);
					}
					if (random.nextInt(5) == 0) {
						timer.disarm();
					}
					else {
						expected.add(at[0]);
					}
				}
				armed.countDown();
			});
			assertThat(armed.await(10, TimeUnit.SECONDS)).isTrue();
			CountDownLatch after = new CountDownLatch(1);
			scheduler.schedule(scheduler.now().plusMillis(600), after::countDown);
			assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
			CountDownLatch read = new CountDownLatch(1);
			java.util.List<java.time.Instant> seen = new java.util.ArrayList<>();
			scheduler.schedule(scheduler.now(), () -> {
				seen.addAll(fired);
				read.countDown();
			});
			assertThat(read.await(10, TimeUnit.SECONDS)).isTrue();
			expected.sort(null);
			assertThat(seen).containsExactlyElementsOf(expected);
		}
	}

	@Test
	void afterCloseNothingRunsAndSchedulingIsHarmless() throws Exception {
		ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1);
		CountDownLatch ran = new CountDownLatch(1);
		scheduler.schedule(scheduler.now().plusMillis(50), ran::countDown);
		scheduler.close();
		scheduler.schedule(scheduler.now(), ran::countDown).cancel();
		assertThat(ran.await(200, TimeUnit.MILLISECONDS)).isFalse();
	}

	@Test
	void monotonicClockNeverGoesBackwards() {
		MonotonicClock clock = new MonotonicClock();
		java.time.Instant previous = clock.instant();
		for (int i = 0; i < 10_000; i++) {
			java.time.Instant now = clock.instant();
			assertThat(now).isAfterOrEqualTo(previous);
			previous = now;
		}
		assertThat(Duration.between(java.time.Instant.now(), clock.instant()).abs()).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void aLeaseRenewsInRealTimeOnTheSharedScheduler() throws Exception {
		try (ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1)) {
			InMemoryVault vault = new InMemoryVault(scheduler::now).role("orders", Duration.ofSeconds(2),
					Duration.ofHours(1));
			CountDownLatch renewals = new CountDownLatch(2);
			ManagedLease lease = ManagedLease.builder("orders", vault.secrets("orders", () -> null), scheduler)
				.policy(RenewalPolicy.builder()
					.renewAt(0.5)
					.expiryBuffer(Duration.ofMillis(100))
					.attemptTimeout(Duration.ofMillis(500))
					.build())
				.listener(new LeaseListener() {
					@Override
					public void onRenewed(LeaseRenewal renewal) {
						renewals.countDown();
					}
				})
				.build();
			lease.start();
			assertThat(lease.firstGrant().get(5, TimeUnit.SECONDS).generation()).isEqualTo(1);
			assertThat(renewals.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(lease.requireValidFor(Duration.ofMillis(200)).generation()).isEqualTo(1);
			lease.stop(true).get(5, TimeUnit.SECONDS);
			assertThat(lease.current().state()).isEqualTo(LeaseState.REVOKED);
		}
	}

}
