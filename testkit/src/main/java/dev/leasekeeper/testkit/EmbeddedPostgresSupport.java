package dev.leasekeeper.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * Starts an embedded PostgreSQL that enforces passwords: the {@code postgres} superuser
 * connects without one (it is the admin), every other role must log in with
 * {@code scram-sha-256}, so that a wrong or dropped credential is refused as it would be
 * in production ({@code trust} would hide it).
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class EmbeddedPostgresSupport {

	private EmbeddedPostgresSupport() {
	}

	/**
	 * Start PostgreSQL with password authentication enforced for every role but
	 * {@code postgres}.
	 * @return the running database; close it to stop it
	 */
	public static EmbeddedPostgres startWithPasswords() {
		try {
			Path directory = Files.createTempDirectory("leasekeeper-pg-hba");
			Path hba = directory.resolve("pg_hba.conf");
			// gone with the JVM (deleted in the reverse order: the file, then its
			// directory), not left behind in the temporary directory by every run
			directory.toFile().deleteOnExit();
			hba.toFile().deleteOnExit();
			Files.writeString(hba, """
					# TYPE  DATABASE  USER      ADDRESS        METHOD
					local   all       postgres                 trust
					host    all       postgres  127.0.0.1/32   trust
					host    all       postgres  ::1/128        trust
					local   all       all                      scram-sha-256
					host    all       all       127.0.0.1/32   scram-sha-256
					host    all       all       ::1/128        scram-sha-256
					""");
			// the server may run as another user (as "nobody" when started by root)
			Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
			Files.setPosixFilePermissions(hba, PosixFilePermissions.fromString("rw-r--r--"));
			return EmbeddedPostgres.builder()
				.setServerConfig("hba_file", hba.toString())
				.setServerConfig("password_encryption", "scram-sha-256")
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start embedded PostgreSQL", ex);
		}
	}

}
