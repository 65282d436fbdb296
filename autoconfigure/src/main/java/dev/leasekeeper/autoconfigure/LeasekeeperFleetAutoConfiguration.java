package dev.leasekeeper.autoconfigure;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import com.zaxxer.hikari.util.Credentials;
import org.jspecify.annotations.Nullable;

import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Fleet;
import dev.leasekeeper.autoconfigure.LeasekeeperProperties.Lease;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseRenewer;
import dev.leasekeeper.core.LeaseScheduler;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.fleet.GroupLeader;
import dev.leasekeeper.fleet.GroupLeaseSource;
import dev.leasekeeper.fleet.GroupMember;
import dev.leasekeeper.fleet.GroupStore;
import dev.leasekeeper.jdbc.PoolRefresher;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.vault.core.VaultOperations;

/**
 * Fleet scope, with Spring Integration on the classpath: the leases declared with
 * {@code sharing: group} are read from their group's publication, and each instance takes
 * part in the election of the leader that keeps the group's grant
 * ({@link LockRegistryLeaderInitiator} over the application's {@link LockRegistry}, or a
 * JDBC lock registry on {@code leasekeeper.fleet.lock.*}).
 *
 * @author Leasekeeper
 * @since 0.2.0
 */
@AutoConfiguration(after = LeasekeeperAutoConfiguration.class)
@ConditionalOnClass({ LockRegistryLeaderInitiator.class, VaultOperations.class })
@Conditional(OnLeasekeeperEnabledCondition.class)
public final class LeasekeeperFleetAutoConfiguration {

	@Bean
	GroupLeases leasekeeperGroupLeases(LeasekeeperProperties properties, Environment environment,
			LeaseScheduler scheduler, ObjectProvider<LockRegistry<?>> registries,
			ObjectProvider<LeaseConsumer> consumers, BeanFactory beanFactory, LockCredentials lockCredentials) {
		return new GroupLeases(properties, environment, scheduler, registries, consumers, beanFactory, lockCredentials);
	}

	/**
	 * Leaves the groups when the application stops, before the leases and the login token
	 * stop: a leader releases its lock while it can still publish.
	 */
	@Bean
	SmartLifecycle leasekeeperGroupLeasesCloser(GroupLeases groupLeases) {
		return new BeforeLeasesStop(groupLeases::close);
	}

	@Bean
	LockCredentials leasekeeperFleetLockCredentials() {
		return new LockCredentials();
	}

	/**
	 * The lock's connection takes each new credential of leasekeeper.fleet.lock.lease.
	 * The consumer looks nothing up: it is called while beans are still being made (the
	 * lock lease's first grant is awaited as the group lease's renewer is made).
	 */
	@Bean
	@ConditionalOnProperty("leasekeeper.fleet.lock.lease")
	LeaseConsumer leasekeeperFleetLockConsumer(LeasekeeperProperties properties, LockCredentials lockCredentials) {
		String name = properties.getFleet().getLock().getLease().strip();
		return new LeaseConsumer(name, new LeaseListener() {

			@Override
			public void accept(LeaseSnapshot candidate, @Nullable LeaseSnapshot previous) {
				lockCredentials.changed(candidate.data());
			}

		});
	}

	/**
	 * Passes the lock lease's new credentials to the lock's pool, once it is open.
	 */
	static final class LockCredentials {

		private volatile @Nullable Consumer<Map<String, Object>> target;

		void changed(Map<String, Object> data) {
			Consumer<Map<String, Object>> current = this.target;
			if (current != null) {
				current.accept(data);
			}
		}

	}

	/**
	 * The group leases of this instance: each one's view, its member of the group, and
	 * the election's lock.
	 */
	static final class GroupLeases implements GroupLeaseRenewers, SmartLifecycle {

		private final LeasekeeperProperties properties;

		private final Environment environment;

		private final LeaseScheduler scheduler;

		private final ObjectProvider<LockRegistry<?>> registries;

		private final ObjectProvider<LeaseConsumer> consumers;

		private final String id = UUID.randomUUID().toString().substring(0, 8);

		private final List<GroupMember> members = new ArrayList<>();

		private @Nullable LockRegistry<?> locks;

		private @Nullable FleetJdbcLocks ownLocks;

		private volatile boolean running;

		private final BeanFactory beanFactory;

		private final LockCredentials lockCredentials;

		GroupLeases(LeasekeeperProperties properties, Environment environment, LeaseScheduler scheduler,
				ObjectProvider<LockRegistry<?>> registries, ObjectProvider<LeaseConsumer> consumers,
				BeanFactory beanFactory, LockCredentials lockCredentials) {
			this.beanFactory = beanFactory;
			this.lockCredentials = lockCredentials;
			this.properties = properties;
			this.environment = environment;
			this.scheduler = scheduler;
			this.registries = registries;
			this.consumers = consumers;
		}

		@Override
		public synchronized ManagedLeaseRenewer renewer(String name, VaultOperations vault,
				LeaseRenewerFactory factory) {
			Lease lease = this.properties.getLeases().get(name);
			Fleet fleet = this.properties.getFleet();
			String group = group();
			String[] kv = GroupStore.split(fleet.getKvPath());
			GroupStore store = new GroupStore(vault, kv[0] + "/data/" + kv[1] + "/" + group + "/" + name);
			String tokenRole = fleet.getTokenRole();
			AtomicReference<ManagedLease> view = new AtomicReference<>();
			LeasekeeperProperties.LeaseSettings defaults = this.properties.getDefaults();
			GroupMember member = new GroupMember(group, name, this.id, store, locks(), fleet.getLock().getTimeToLive(),
					this.scheduler, fleet.getFailoverWindow(), new SplittableRandom(),
					(elected) -> new GroupLeader(new GroupLeader.Spec(name, lease.getPath(), group, tokenRole, store,
							vault, this.scheduler, Clock.systemUTC(), lease.policy(defaults),
							this.properties.getToken().policy(defaults), lease.getIncrement(), lease.getMaxTtl(),
							validator(name), () -> {
								// this instance's own pool takes the new grant at once
								ManagedLease own = view.get();
								if (own != null) {
									own.rotateNow(RotationCause.PUBLISHED);
								}
							}), elected));
			this.members.add(member);
			GroupLeaseSource source = new GroupLeaseSource(store, member, this.scheduler.clock(), Clock.systemUTC(),
					fleet.getReadSpread(), new SplittableRandom());
			ManagedLeaseRenewer renewer = factory.groupLease(name, source);
			view.set(renewer.getLease());
			return renewer;
		}

		private String group() {
			String group = this.properties.getFleet().getGroup();
			return (group != null) ? group : this.environment.getRequiredProperty("spring.application.name");
		}

		/** A new grant's credential opens a real connection of the lease's pool. */
		private GroupLeader.Validator validator(String name) {
			return (data) -> {
				PoolRefresher refresher = this.consumers.orderedStream()
					.filter((consumer) -> consumer.leaseName().equals(name))
					.map(LeaseConsumer::listener)
					.filter(PoolRefresher.class::isInstance)
					.map(PoolRefresher.class::cast)
					.findFirst()
					.orElse(null);
				if (refresher != null) {
					refresher.check(data);
				}
			};
		}

		/**
		 * The application's lock registry, else a JDBC one on the lock's own connection
		 * (never the shared grant's: followers have none until the leader publishes).
		 */
		private LockRegistry<?> locks() {
			if (this.locks != null) {
				return this.locks;
			}
			LockRegistry<?> application = this.registries.getIfUnique();
			if (application != null) {
				this.locks = application;
				return application;
			}
			LeasekeeperProperties.Lock lock = this.properties.getFleet().getLock();
			if (lock.getUrl() == null) {
				throw new InvalidConfigurationPropertyValueException("leasekeeper.fleet.lock.url", "",
						"must be set when a lease has sharing: group and the application has no LockRegistry bean:"
								+ " the JDBC URL of the database with Spring Integration's INT_LOCK table");
			}
			FleetJdbcLocks own = new FleetJdbcLocks(lock, lockCredential());
			String lockLease = lock.getLease();
			if (lockLease != null) {
				this.lockCredentials.target = (data) -> own.credentialChanged(credential(lockLease.strip(), data));
			}
			this.ownLocks = own;
			this.locks = own.registry();
			return this.locks;
		}

		/**
		 * The credential of leasekeeper.fleet.lock.lease, its first grant awaited as the
		 * lease's bean is made; {@code null} without it.
		 */
		private @Nullable Credentials lockCredential() {
			String name = this.properties.getFleet().getLock().getLease();
			if (name == null) {
				return null;
			}
			LeaseRenewer lease = this.beanFactory.getBean(LeaseRenewerRegistrar.beanName(name.strip()),
					LeaseRenewer.class);
			return credential(name.strip(), lease.current().data());
		}

		private Credentials credential(String name, Map<String, Object> data) {
			Lease lease = this.properties.getLeases().get(name);
			Object username = data.get(lease.getUsernameKey());
			Object password = data.get(lease.getPasswordKey());
			return Credentials.of((username != null) ? username.toString() : null,
					(password != null) ? password.toString() : null);
		}

		/**
		 * Return this instance's id in its groups.
		 */
		String id() {
			return this.id;
		}

		synchronized List<GroupMember> members() {
			return List.copyOf(this.members);
		}

		@Override
		public void start() {
			this.running = true;
			// the lock registry is ready: the elections may begin
			members().forEach(GroupMember::open);
		}

		@Override
		public void stop() {
			this.running = false;
			close();
		}

		synchronized void close() {
			for (GroupMember member : this.members) {
				member.close();
			}
			this.members.clear();
			FleetJdbcLocks own = this.ownLocks;
			this.ownLocks = null;
			if (own != null) {
				own.close();
			}
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			// the elections begin before the group leases wait for their first grant
			return ManagedLeaseRenewer.TOKEN_PHASE - 1;
		}

	}

}
