package dev.leasekeeper.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The simulator's Vault rules at exact instants, on a clock that only moves when told.
 */
class VaultModelTests {

	private final SimulatorClock clock = new SimulatorClock(
			Clock.fixed(Instant.parse("2026-03-01T10:00:00.700Z"), ZoneOffset.UTC));

	private final VaultModel model = new VaultModel(this.clock, DatabaseBackend.NONE, "root");

	private final VaultModel.Token root = this.model.authenticate("root");

	@Test
	void inTheLastFractionOfTheMaxTtlsSecondARenewalIsPastTheMaxTtl() {
		this.model.databaseRole("orders", Duration.ofSeconds(4), Duration.ofSeconds(8));
		VaultModel.SecretLease lease = this.model.createCredentials(this.root, "orders");
		// issued at 10:00:00.700: the ceiling is 10:00:00 + 8 s, whole seconds
		this.clock.jump(Duration.ofSeconds(3));
		assertThat(this.model.renewLease(lease.id, Duration.ofSeconds(4)).ttl()).isEqualTo(Duration.ofSeconds(4));
		this.clock.jump(Duration.ofSeconds(3));
		VaultModel.Granted capped = this.model.renewLease(lease.id, Duration.ofSeconds(4));
		assertThat(capped.ttl()).isEqualTo(Duration.ofSeconds(2));
		assertThat(capped.warnings())
			.containsExactly("TTL of \"4s\" exceeded the effective max_ttl of \"2s\"; TTL value is capped accordingly");
		// expires at 10:00:08.700; from 10:00:08.000 on, nothing is left in whole seconds
		this.clock.jump(Duration.ofMillis(1400));
		assertThatExceptionOfType(VaultError.class).isThrownBy(() -> this.model.renewLease(lease.id, null))
			.withMessage("past the max TTL, cannot renew")
			.satisfies((error) -> assertThat(error.status()).isEqualTo(400));
		this.clock.jump(Duration.ofMillis(700));
		assertThatExceptionOfType(VaultError.class).isThrownBy(() -> this.model.renewLease(lease.id, null))
			.withMessage("lease expired");
		this.model.expire();
		assertThatExceptionOfType(VaultError.class).isThrownBy(() -> this.model.renewLease(lease.id, null))
			.withMessage("lease not found");
	}

	@Test
	void anAppRoleTokenTakesItsTtlFromTheRoleAtEachRenewal() {
		this.model.appRole("worker", "rid", "sid", Duration.ofSeconds(30), Duration.ofSeconds(120), null,
				java.util.List.of("default"));
		VaultModel.Token token = this.model.login("rid", "sid");
		assertThat(token.expireAt).isEqualTo(this.clock.instant().plusSeconds(30));
		this.model.changeRole("worker", Duration.ofSeconds(10), Duration.ofSeconds(120));
		assertThat(this.model.renewSelf(token, null).ttl()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void aRootTokenCannotBeRenewed() {
		assertThatExceptionOfType(VaultError.class).isThrownBy(() -> this.model.renewSelf(this.root, null))
			.withMessage("lease is not renewable");
	}

	@Test
	void durationsArePrintedAsVaultPrintsThem() {
		assertThat(VaultDurations.format(Duration.ofHours(1))).isEqualTo("1h");
		assertThat(VaultDurations.format(Duration.ofMinutes(10))).isEqualTo("10m");
		assertThat(VaultDurations.format(Duration.ofSeconds(3598))).isEqualTo("59m58s");
		assertThat(VaultDurations.format(Duration.ofSeconds(3661))).isEqualTo("1h1m1s");
		assertThat(VaultDurations.parse("increment", "1h30m")).isEqualTo(Duration.ofMinutes(90));
		assertThat(VaultDurations.parse("increment", 90)).isEqualTo(Duration.ofSeconds(90));
		assertThat(VaultDurations.parse("increment", "90")).isEqualTo(Duration.ofSeconds(90));
		assertThatExceptionOfType(VaultError.class).isThrownBy(() -> VaultDurations.parse("increment", "soon"))
			.withMessageContaining("increment");
	}

	@Test
	void theLeasesOfARevokedTokenAreExpiredNotRenewableUntilTheExpiryLoopRevokesThem() {
		this.model.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1));
		VaultModel.Token token = this.model
			.createToken(this.root, Duration.ofHours(1), null, null, true, null, false, null)
			.token();
		VaultModel.SecretLease lease = this.model.createCredentials(token, "orders");
		this.model.revokeToken(token);
		assertThatExceptionOfType(VaultError.class).isThrownBy(() -> this.model.renewLease(lease.id, null))
			.withMessage("lease expired");
		assertThat(this.model.isRenewable(this.model.lookupLease(lease.id))).isFalse();
		this.model.expire();
		assertThatExceptionOfType(VaultError.class).isThrownBy(() -> this.model.renewLease(lease.id, null))
			.withMessage("lease not found");
	}

	@Test
	void anOperatorNarrowingAPolicyRefusesTheNextRequestOfATokenThatHoldsIt() {
		this.model.databaseRole("orders", Duration.ofMinutes(10), Duration.ofHours(1));
		VaultModel.Token token = this.model
			.createToken(this.root, Duration.ofHours(1), null, null, true,
					java.util.List.of(VaultModel.APPLICATION_POLICY), false, null)
			.token();
		this.model.authorize(token, "database/creds/orders", "read");
		this.model.writePolicy(VaultModel.APPLICATION_POLICY,
				Policy.application(java.util.List.of(), java.util.List.of()));
		assertThatExceptionOfType(VaultError.class)
			.isThrownBy(() -> this.model.authorize(token, "database/creds/orders", "read"))
			.satisfies((error) -> assertThat(error.status()).isEqualTo(403));
		// written by an operator, the policy no longer follows the roles
		this.model.databaseRole("reports", Duration.ofMinutes(10), Duration.ofHours(1));
		assertThatExceptionOfType(VaultError.class)
			.isThrownBy(() -> this.model.authorize(token, "database/creds/reports", "read"));
	}

}
