package dev.leasekeeper.sample;

/**
 * The sample's one table. Created by an administrator: the dynamic database users only
 * get to read and write it.
 */
final class Schema {

	static final String SQL = """
			CREATE TABLE IF NOT EXISTS orders (
				id bigserial PRIMARY KEY,
				item text NOT NULL,
				status text NOT NULL DEFAULT 'new',
				created_at timestamptz NOT NULL DEFAULT now(),
				processed_at timestamptz,
				processed_by text
			)""";

	private Schema() {
	}

}
