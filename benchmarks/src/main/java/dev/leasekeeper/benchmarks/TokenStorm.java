package dev.leasekeeper.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.leasekeeper.core.Grant;
import dev.leasekeeper.core.CeilingAction;
import dev.leasekeeper.core.LeaseListener;
import dev.leasekeeper.core.LeaseLossReason;
import dev.leasekeeper.core.LeaseSnapshot;
import dev.leasekeeper.core.LeaseSource;
import dev.leasekeeper.core.ManagedLease;
import dev.leasekeeper.core.RotationCause;
import dev.leasekeeper.core.VirtualTimeLeaseScheduler;

/**
 * Token rotation: one instance whose login token (TTL 1 h, max TTL 2 h) has many secret
 * leases (TTL 1 h, max TTL 24 h) obtained under it, in virtual time. When the token
 * reaches its ceiling and is replaced, every secret must be obtained again under the new
 * token before the old one ends: how many acquisitions reach Vault in the busiest minute,
 * against the mean over the period they are spread over.
 */
final class TokenStorm {

	static final Duration TOKEN_TTL = Duration.ofHours(1);

	static final Duration TOKEN_MAX_TTL = Duration.ofHours(2);

	static final Duration SECRET_TTL = Duration.ofHours(1);

	static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

	final int secrets;

	TokenStorm(boolean smoke) {
		this.secrets = smoke ? 100 : 1000;
	}

	/** What one rule did after the token was replaced. */
	record Result(String rule, int acquisitions, long periodMinutes, double mean, int peak, int lost) {

		double ratio() {
			return this.peak / this.mean;
		}

	}

	/**
	 * Run one rule.
	 * @param allAtOnce whether every secret is obtained anew as soon as the token is
	 * replaced (0.1.0's follower of a foreign session manager), rather than by the
	 * engine's own spread
	 */
	Result run(String rule, boolean allAtOnce, long seed) {
		VirtualTimeLeaseScheduler scheduler = new VirtualTimeLeaseScheduler(ORIGIN);
		Vault vault = new Vault(scheduler);
		SplittableRandom random = new SplittableRandom(seed);
		AtomicInteger lost = new AtomicInteger();
		LeaseListener losses = new LeaseListener() {

			@Override
			public void onLost(LeaseSnapshot lease, LeaseLossReason reason, @Nullable String errorClass) {
				lost.incrementAndGet();
			}

		};
		List<ManagedLease> secrets = new ArrayList<>();
		Instant[] replacedAt = new Instant[1];
		Instant[] hardExpiry = new Instant[1];
		ManagedLease token = ManagedLease.builder("token", vault.tokens(), scheduler)
			.random(random.split())
			.listener(new LeaseListener() {

				@Override
				public void onCeilingReached(LeaseSnapshot lease, Instant expiry, CeilingAction action) {
					if (hardExpiry[0] == null) {
						hardExpiry[0] = expiry;
					}
				}

				@Override
				public void onRotated(LeaseSnapshot lease, int previousGeneration, RotationCause cause) {
					if (replacedAt[0] == null) {
						replacedAt[0] = scheduler.now();
						if (allAtOnce) {
							secrets.forEach((secret) -> secret.rotateNow(RotationCause.TOKEN));
						}
					}
				}

			})
			.build();
		for (int i = 0; i < this.secrets; i++) {
			secrets.add(ManagedLease.builder("secret-" + i, vault.secrets(), scheduler)
				.token(token)
				.random(random.split())
				.listener(losses)
				.build());
		}
		token.start();
		secrets.forEach(ManagedLease::start);
		while (replacedAt[0] == null) {
			scheduler.advanceBy(Duration.ofMinutes(1));
		}
		// the old token's end, as its ceiling revealed it
		Instant oldTokenExpiry = hardExpiry[0];
		Instant replaced = replacedAt[0];
		Duration period = Duration.between(replaced, oldTokenExpiry).dividedBy(2);
		scheduler.advanceTo(oldTokenExpiry.plus(Duration.ofMinutes(5)));
		int[] perMinute = new int[(int) Duration.between(replaced, oldTokenExpiry).toMinutes() + 6];
		int acquisitions = 0;
		for (Instant at : vault.acquisitions) {
			if (!at.isBefore(replaced)) {
				perMinute[(int) Duration.between(replaced, at).toMinutes()]++;
				acquisitions++;
			}
		}
		int peak = 0;
		for (int count : perMinute) {
			peak = Math.max(peak, count);
		}
		long minutes = Math.max(1, period.toMinutes());
		return new Result(rule, acquisitions, minutes, (double) this.secrets / minutes, peak, lost.get());
	}

	String table(long seed) {
		List<Result> results = List.of(run("(a) Leasekeeper (defaults)", false, seed), run(
				"(b) every secret obtained anew at once (0.1.0's follower of a foreign session manager)", true, seed));
		StringBuilder table = new StringBuilder();
		table.append("Token rotation: one token (TTL 1 h, max TTL 2 h) with ")
			.append(this.secrets)
			.append(" secret leases obtained under it (TTL 1 h); acquisitions after the token is replaced, per "
					+ "minute, against the mean over the first half of the time the old token has left\n\n");
		table.append("| Rule | Acquisitions after the token rotation | Period (min) | Mean per minute | "
				+ "Peak minute | Leases lost |\n");
		table.append("|---|---|---|---|---|---|\n");
		for (Result result : results) {
			table.append(String.format(Locale.ROOT, "| %s | %d | %d | %.1f | %d (%.2f×) | %d |%n", result.rule(),
					result.acquisitions(), result.periodMinutes(), result.mean(), result.peak(), result.ratio(),
					result.lost()));
		}
		return table.toString();
	}

	/** Vault for one instance: its login tokens and its secrets, on the virtual clock. */
	private static final class Vault {

		private final VirtualTimeLeaseScheduler scheduler;

		final List<Instant> acquisitions = new ArrayList<>();

		private long sequence;

		Vault(VirtualTimeLeaseScheduler scheduler) {
			this.scheduler = scheduler;
		}

		LeaseSource tokens() {
			return new LeaseSource() {

				private Instant issued = ORIGIN;

				@Override
				public Grant acquire() {
					this.issued = Vault.this.scheduler.now();
					String id = "token-" + (++Vault.this.sequence);
					return new Grant(id, TOKEN_TTL, true, Map.of("token", id), List.of(), this.issued);
				}

				@Override
				public Grant renew(Grant current, @Nullable Duration increment) {
					Instant now = Vault.this.scheduler.now();
					Duration left = Duration.between(now, this.issued.plus(TOKEN_MAX_TTL));
					Duration granted = (left.compareTo(TOKEN_TTL) < 0) ? left : TOKEN_TTL;
					return new Grant(current.leaseId(), granted, true, current.data(), List.of(), now);
				}

				@Override
				public void revoke(Grant current) {
				}

			};
		}

		LeaseSource secrets() {
			return new LeaseSource() {

				@Override
				public Grant acquire() {
					Instant now = Vault.this.scheduler.now();
					Vault.this.acquisitions.add(now);
					return new Grant("database/creds/orders/" + (++Vault.this.sequence), SECRET_TTL, true, Map.of(),
							List.of(), now);
				}

				@Override
				public Grant renew(Grant current, @Nullable Duration increment) {
					return new Grant(current.leaseId(), SECRET_TTL, true, Map.of(), List.of(),
							Vault.this.scheduler.now());
				}

				@Override
				public void revoke(Grant current) {
				}

			};
		}

	}

}
