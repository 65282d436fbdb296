package dev.leasekeeper.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

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
				this.secrets[i] = this.container.requestRenewableSecret("database/creds/orders-" + i);
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
			options.forks(2)
				.jvmArgsAppend("-Xmx4g")
				.warmupIterations(3)
				.warmupTime(TimeValue.seconds(3))
				.measurementIterations(5)
				.measurementTime(TimeValue.seconds(3));
		}
		Collection<RunResult> results = new Runner(options.build()).run();
		StringBuilder table = new StringBuilder("Engine overhead: renewals per second on one thread, in-memory store ("
				+ LEASES + " leases, round robin)\n\n| Engine | Renewals per second | ± (99.9 %) |\n|---|---|---|\n");
		for (RunResult result : results) {
			String name = result.getParams().getBenchmark();
			name = name.substring(name.lastIndexOf('.') + 1);
			table.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f |%n",
					name.startsWith("leasekeeper") ? "Leasekeeper `ManagedLease` (renewNow + run)"
							: "Spring Vault `SecretLeaseContainer.renew`",
					result.getPrimaryResult().getScore(), result.getPrimaryResult().getScoreError()));
		}
		table.append("\nHeap per managed lease (retained, after GC; each lease's data is its lease id alone)\n\n")
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

	static long leasekeeperHeapPerLease(int count) {
		long before = usedHeap();
		VirtualTimeLeaseScheduler scheduler = new VirtualTimeLeaseScheduler(InMemory.origin());
		ManagedLease[] leases = InMemory.leasekeeper(scheduler, count);
		long after = usedHeap();
		java.lang.ref.Reference.reachabilityFence(leases);
		java.lang.ref.Reference.reachabilityFence(scheduler);
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
			secrets.add(container.requestRenewableSecret("database/creds/orders-" + i));
		}
		container.start();
		long after = usedHeap();
		java.lang.ref.Reference.reachabilityFence(secrets);
		container.destroy();
		taskScheduler.shutdown();
		return (after - before) / count;
	}

	private static long usedHeap() {
		for (int i = 0; i < 4; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

}
