package dev.leasekeeper.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import dev.leasekeeper.core.ExecutorLeaseScheduler;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseRenewal;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.VirtualTimeLeaseScheduler;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.vault.core.lease.SecretLeaseContainer;
import org.springframework.vault.core.lease.domain.RequestedSecret;

/**
 * Engine overhead: renewals per second through each engine with an in-memory store (JMH,
 * one thread), and the heap each managed lease takes at 10,000 and 100,000 leases.
 */
public class EngineOverhead {

	private static final int LEASES = 1_000;

	/** Leasekeeper: one renewal asked for and run to completion per operation. */
	@State(Scope.Thread)
	public static class LeasekeeperState {

		VirtualTimeLeaseScheduler scheduler;

		ManagedLease[] leases;

		int next;

		@Setup(Level.Iteration)
		public void setUp() {
			// rebuilt each iteration: a renewal re-arms the next one, and the virtual
			// scheduler keeps the timers it called off until their instant
			this.scheduler = new VirtualTimeLeaseScheduler(InMemory.origin());
			this.leases = InMemory.leasekeeper(this.scheduler, LEASES);
		}

	}

	/**
	 * Leasekeeper as it runs in production: the {@link ExecutorLeaseScheduler} (its
	 * scheduling thread and workers). An operation asks each of the leases for a renewal
	 * and waits until all have been renewed, so the engine's threads work in parallel as
	 * they would for a fleet of leases.
	 */
	@State(Scope.Thread)
	public static class ProductionState {

		ExecutorLeaseScheduler scheduler;

		ManagedLease[] leases;

		/**
		 * Released once per {@value #LEASES} renewals: the harness wakes once per
		 * operation.
		 */
		final java.util.concurrent.Semaphore renewed = new java.util.concurrent.Semaphore(0);

		final java.util.concurrent.atomic.AtomicLong count = new java.util.concurrent.atomic.AtomicLong();

		@Setup(Level.Trial)
		public void setUp() throws Exception {
			this.scheduler = new ExecutorLeaseScheduler(2);
			this.leases = InMemory.leasekeeper(this.scheduler, LEASES, new LeaseListener() {

				@Override
				public void onRenewed(LeaseRenewal renewal) {
					if (ProductionState.this.count.incrementAndGet() % LEASES == 0) {
						ProductionState.this.renewed.release();
					}
				}

			});
			for (ManagedLease lease : this.leases) {
				lease.firstGrant().get(10, TimeUnit.SECONDS);
			}
		}

		@TearDown(Level.Trial)
		public void tearDown() {
			this.scheduler.close();
		}

	}

	/** Spring Vault: {@code SecretLeaseContainer.renew} per operation. */
	@State(Scope.Thread)
	public static class ContainerState {

		ThreadPoolTaskScheduler taskScheduler;

		SecretLeaseContainer container;

		RequestedSecret[] secrets;

		int next;

		@Setup(Level.Trial)
		public void setUp() {
			this.taskScheduler = new ThreadPoolTaskScheduler();
			this.taskScheduler.setRemoveOnCancelPolicy(true);
			this.taskScheduler.initialize();
			this.container = InMemory.secretLeaseContainer(this.taskScheduler);
			this.secrets = new RequestedSecret[LEASES];
			for (int i = 0; i < LEASES; i++) {
				this.secrets[i] = this.container.requestRenewableSecret(InMemory.path(i));
			}
			this.container.start();
		}

		@TearDown(Level.Trial)
		public void tearDown() throws Exception {
			this.container.destroy();
			this.taskScheduler.shutdown();
		}

	}

	@Benchmark
	public Object leasekeeperRenewal(LeasekeeperState state) {
		ManagedLease lease = state.leases[state.next++ % LEASES];
		lease.renewNow();
		state.scheduler.runDue();
		return lease;
	}

	@Benchmark
	@OperationsPerInvocation(LEASES)
	public Object leasekeeperProductionRenewal(ProductionState state) throws InterruptedException {
		for (ManagedLease lease : state.leases) {
			lease.renewNow();
		}
		if (!state.renewed.tryAcquire(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Not every lease renewed within 10 s");
		}
		return state.leases;
	}

	@Benchmark
	public boolean secretLeaseContainerRenewal(ContainerState state) {
		return state.container.renew(state.secrets[state.next++ % LEASES]);
	}

	static String run(boolean smoke) throws Exception {
		ChainedOptionsBuilder options = new OptionsBuilder().include(EngineOverhead.class.getName() + "\\.")
			.threads(1)
			.timeUnit(TimeUnit.SECONDS)
			.mode(org.openjdk.jmh.annotations.Mode.Throughput);
		if (smoke) {
			options.forks(0).warmupIterations(0).measurementIterations(1).measurementTime(TimeValue.milliseconds(200));
		}
		else {
			options.addProfiler(GCProfiler.class)
				.forks(2)
				.jvmArgsAppend("-Xmx4g")
				.warmupIterations(3)
				.warmupTime(TimeValue.seconds(3))
				.measurementIterations(5)
				.measurementTime(TimeValue.seconds(3));
		}
		Collection<RunResult> results = new Runner(options.build()).run();
		StringBuilder table = new StringBuilder("Engine overhead: renewals per second, in-memory store (" + LEASES
				+ " leases, each named by its path, the same lease ids for both engines), JMH with its gc profiler"
				+ "\n\n| Engine | Renewals per second | ± (99.9 %) | Bytes allocated per renewal |\n|---|---|---|---|\n");
		for (RunResult result : results) {
			String name = result.getParams().getBenchmark();
			name = name.substring(name.lastIndexOf('.') + 1);
			org.openjdk.jmh.results.Result<?> allocation = result.getSecondaryResults().get("gc.alloc.rate.norm");
			table.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %s |%n", describe(name),
					result.getPrimaryResult().getScore(), result.getPrimaryResult().getScoreError(),
					(allocation != null) ? String.format(Locale.ROOT, "%,.0f", allocation.getScore()) : "–"));
		}
		table
			.append("\nHeap per managed lease (retained, after GC, each engine on its production scheduler; "
					+ "each lease's data is its lease id alone)\n\n")
			.append("| Engine | Leases | Heap per lease |\n|---|---|---|\n");
		// once, unmeasured: what the first lease of a process allocates (loggers, class
		// initialisation) is not what each lease costs
		leasekeeperHeapPerLease(1_000);
		containerHeapPerLease(1_000);
		for (int count : smoke ? new int[] { 1_000 } : new int[] { 10_000, 100_000 }) {
			table.append(String.format(Locale.ROOT, "| Leasekeeper | %,d | %,d bytes |%n", count,
					leasekeeperHeapPerLease(count)));
			table.append(String.format(Locale.ROOT, "| SecretLeaseContainer | %,d | %,d bytes |%n", count,
					containerHeapPerLease(count)));
		}
		return table.toString();
	}

	private static String describe(String benchmark) {
		return switch (benchmark) {
			case "leasekeeperProductionRenewal" ->
				"Leasekeeper on `ExecutorLeaseScheduler` (renewNow on every lease, until all renewed)";
			case "leasekeeperRenewal" -> "Leasekeeper's engine alone on the virtual scheduler (renewNow + run)";
			default -> "Spring Vault `SecretLeaseContainer.renew` on its `ThreadPoolTaskScheduler`";
		};
	}

	static long leasekeeperHeapPerLease(int count) throws Exception {
		// as in production: timers on the ExecutorLeaseScheduler's queue, as the
		// container's are on its ThreadPoolTaskScheduler's
		ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(2);
		long before = usedHeap();
		ManagedLease[] leases = InMemory.leasekeeper(scheduler, count, new LeaseListener() {
		});
		for (ManagedLease lease : leases) {
			lease.firstGrant().get(10, TimeUnit.SECONDS);
		}
		long after = usedHeap();
		java.lang.ref.Reference.reachabilityFence(leases);
		scheduler.close();
		return (after - before) / count;
	}

	static long containerHeapPerLease(int count) throws Exception {
		ThreadPoolTaskScheduler taskScheduler = new ThreadPoolTaskScheduler();
		taskScheduler.setRemoveOnCancelPolicy(true);
		taskScheduler.initialize();
		long before = usedHeap();
		SecretLeaseContainer container = InMemory.secretLeaseContainer(taskScheduler);
		List<RequestedSecret> secrets = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			secrets.add(container.requestRenewableSecret(InMemory.path(i)));
		}
		container.start();
		long after = usedHeap();
		java.lang.ref.Reference.reachabilityFence(secrets);
		container.destroy();
		taskScheduler.shutdown();
		return (after - before) / count;
	}

	/**
	 * The heap in use once collected: collections repeated until two readings agree
	 * within 0.1 % (what a closed engine's threads still held is gone by then).
	 */
	private static long usedHeap() throws InterruptedException {
		long previous = Long.MAX_VALUE;
		for (int i = 0; i < 20; i++) {
			System.gc();
			Thread.sleep(50);
			long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
			if (Math.abs(previous - used) < used / 1000) {
				return used;
			}
			previous = used;
		}
		return previous;
	}

}
