package dev.leasekeeper.fleet;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.leasekeeper.core.ExecutorLeaseScheduler;

import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.vault.authentication.TokenAuthentication;
import org.springframework.vault.client.VaultEndpoint;
import org.springframework.vault.core.VaultTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The followers of a leader that is late do not all try for the leadership at once: each
 * draws its deadline over the failover window (bounded by a third of what is left of the
 * grant), so that the first to find the leader still late takes over and the others read
 * a fresh publication instead.
 */
class GroupMemberTests {

	private final ExecutorLeaseScheduler scheduler = new ExecutorLeaseScheduler(1);

	private final List<GroupMember> members = new ArrayList<>();

	@AfterEach
	void close() {
		this.members.forEach(GroupMember::close);
		this.scheduler.close();
	}

	@Test
	void followersOfALateLeaderDrawTheirDeadlinesOverTheFailoverWindow() {
		Instant now = Instant.now();
		// late by a minute, valid for ten more
		Publication late = published(Duration.ofMinutes(15), now.plus(Duration.ofMinutes(10)),
				now.minus(Duration.ofMinutes(1)));
		TreeSet<Instant> deadlines = new TreeSet<>();
		for (int i = 0; i < 10; i++) {
			GroupMember member = member(i, Duration.ofSeconds(30));
			member.observed(late, now);
			deadlines.add(member.lastDeadlineAt());
		}
		assertThat(deadlines).hasSize(10);
		assertThat(deadlines.first()).isAfterOrEqualTo(now);
		assertThat(deadlines.last()).isBefore(now.plusSeconds(30));
		// spread over the window, not bunched at its start
		assertThat(Duration.between(deadlines.first(), deadlines.last())).isGreaterThan(Duration.ofSeconds(15));
	}

	@Test
	void aWindowLongerThanAThirdOfWhatIsLeftIsShortened() {
		Instant now = Instant.now();
		Publication late = published(Duration.ofSeconds(30), now.plusSeconds(9), now.minusSeconds(5));
		for (int i = 0; i < 10; i++) {
			GroupMember member = member(i, Duration.ofSeconds(30));
			member.observed(late, now);
			assertThat(member.lastDeadlineAt()).isBefore(now.plusSeconds(3));
		}
	}

	@Test
	void aFreshPublicationDrawsNoDeadline() {
		Instant now = Instant.now();
		Publication fresh = published(Duration.ofMinutes(15), now.plus(Duration.ofMinutes(10)),
				now.plus(Duration.ofMinutes(5)));
		GroupMember member = member(0, Duration.ofSeconds(30));
		member.observed(fresh, now);
		assertThat(member.lastDeadlineAt()).isNull();
		assertThat(member.lastAttemptAt()).isNull();
	}

	private GroupMember member(int number, Duration window) {
		// Vault is never called: the deadlines lie beyond each test
		VaultTemplate unused = new VaultTemplate(VaultEndpoint.from(URI.create("http://127.0.0.1:1")),
				new TokenAuthentication("unused"));
		GroupMember member = new GroupMember("orders", "orders-db", "member-" + number,
				new GroupStore(unused, "secret/data/leasekeeper/orders/orders-db"), new DefaultLockRegistry(),
				Duration.ofSeconds(3), this.scheduler, window, new SplittableRandom(number), (elected) -> {
					throw new AssertionError("not elected here");
				});
		this.members.add(member);
		return member;
	}

	/**
	 * Leader-1's publication of one grant: its TTL, expiry and when it is next refreshed.
	 */
	private static Publication published(Duration ttl, Instant expireAt, Instant refreshAt) {
		return new Publication("database/creds/orders/one", Map.of("username", "v-orders"), ttl, expireAt, refreshAt, 1,
				null, "leader-1", 3);
	}

}
