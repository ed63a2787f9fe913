import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage counted exactly once (SPEC 2.7): the projection writes what it newly created to
 * `usage_outbox` in its own transaction; a relay publishes those rows to the USAGE stream
 * (message id = row id) and deletes them; the usage projection adds each message to
 * `usage_counters` once, remembering applied ids in `usage_applied`.
 */
export class UsageCounters1764000000000 implements MigrationInterface {
  name = 'UsageCounters1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE usage_outbox (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        org_id uuid NOT NULL,
        month text NOT NULL CHECK (month ~ '^\\d{4}-\\d{2}$'),
        metric text NOT NULL CHECK (metric IN ('traces', 'spans', 'eval_runs')),
        n integer NOT NULL CHECK (n > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX usage_outbox_created_idx ON usage_outbox (created_at);
      CREATE TABLE usage_counters (
        org_id uuid NOT NULL,
        month text NOT NULL CHECK (month ~ '^\\d{4}-\\d{2}$'),
        traces bigint NOT NULL DEFAULT 0 CHECK (traces >= 0),
        spans bigint NOT NULL DEFAULT 0 CHECK (spans >= 0),
        eval_runs bigint NOT NULL DEFAULT 0 CHECK (eval_runs >= 0),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, month)
      );
      CREATE TABLE usage_applied (
        id uuid PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE usage_applied, usage_counters, usage_outbox');
  }
}
