import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate-limit tokens leased by API replicas (docs/ARCHITECTURE.md "Replicas"): one row per
 * bucket, counting its current fixed window. Unlogged: a crash forgets at most a window's
 * counts, and a lease is spared the write-ahead log.
 */
export class RateLimitLeases1767120000000 implements MigrationInterface {
  name = 'RateLimitLeases1767120000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE rate_limit_leases (
        bucket text PRIMARY KEY,
        window_no bigint NOT NULL,
        granted integer NOT NULL CHECK (granted >= 0),
        last_grant integer NOT NULL CHECK (last_grant >= 0),
        -- When the window ends, in Unix milliseconds: what the sweep goes by.
        expires_ms bigint NOT NULL
      );
      CREATE INDEX rate_limit_leases_expires_idx ON rate_limit_leases (expires_ms);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limit_leases`);
  }
}
