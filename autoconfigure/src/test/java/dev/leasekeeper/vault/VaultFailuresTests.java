package dev.leasekeeper.vault;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.leasekeeper.core.LeaseSourceException;
import dev.leasekeeper.core.LeaseSourceException.Kind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vault's answers are classified by message before status (VAULT_SEMANTICS.md §2): each
 * lease message, bare, inside Vault's multierror or wrapped by the database engine, is
 * permanent with a 400 and with a 500 alike.
 */
class VaultFailuresTests {

	@ParameterizedTest(name = "{0} with {1}")
	@CsvSource(delimiter = '|',
			textBlock = """
					past the max TTL, cannot renew                                                    | 400 | PERMANENT | past-max-ttl    | false
					past the max TTL, cannot renew                                                    | 500 | PERMANENT | past-max-ttl    | false
					1 error occurred:\\n\\t* past the max TTL, cannot renew\\n\\n                      | 500 | PERMANENT | past-max-ttl    | false
					failed to renew entry: resp: (*logical.Response)(nil) err: past the max TTL, cannot renew | 500 | PERMANENT | past-max-ttl | false
					lease not found                                                                   | 400 | PERMANENT | lease-not-found | true
					lease not found                                                                   | 500 | PERMANENT | lease-not-found | true
					1 error occurred:\\n\\t* lease not found\\n\\n                                     | 500 | PERMANENT | lease-not-found | true
					lease expired                                                                     | 400 | PERMANENT | lease-expired   | true
					lease expired                                                                     | 500 | PERMANENT | lease-expired   | true
					lease is not renewable                                                            | 400 | PERMANENT | not-renewable   | false
					lease is not renewable                                                            | 500 | PERMANENT | not-renewable   | false
					invalid lease                                                                     | 400 | PERMANENT | lease-not-found | true
					invalid lease                                                                     | 500 | PERMANENT | lease-not-found | true
					internal error                                                                    | 500 | TRANSIENT | http-500        | false
					1 error occurred:\\n\\t* permission denied\\n\\n                                   | 403 | UNAUTHORIZED | permission-denied | false
					Vault is sealed                                                                   | 503 | TRANSIENT | http-503        | false
					not implemented                                                                   | 501 | PERMANENT | http-501        | false
					""")
	void aLeaseMessageIsPermanentWhateverTheStatus(String error, int status, Kind kind, String errorClass,
			boolean gone) {
		String body = "{\"errors\":[\"" + error + "\"]}";
		LeaseSourceException failure = VaultFailures.fromStatus("renew database/creds/orders", status,
				VaultFailures.errors(body));
		assertThat(failure.getKind()).isEqualTo(kind);
		assertThat(failure.getErrorClass()).isEqualTo(errorClass);
		assertThat(failure.isCredentialGone()).isEqualTo(gone);
	}

}
