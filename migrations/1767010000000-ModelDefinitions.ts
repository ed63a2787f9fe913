import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A project's own model price definitions (issue 28), which override the built-in table; the
 * project's price version, bumped by every change, which a telemetry batch checks in its
 * transaction so that no span is written with a price older than the recomputation that
 * follows the change; and that recomputation's progress, one row per project (a change while
 * one runs starts it again from the first span, with the newest definitions).
 */
export class ModelDefinitions1767010000000 implements MigrationInterface {
  name = 'ModelDefinitions1767010000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE model_definitions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        model_name text NOT NULL,
        match_pattern text NOT NULL,
        start_date timestamptz NOT NULL,
        unit text NOT NULL CHECK (unit = 'TOKENS'),
        prices jsonb NOT NULL,
        tiers jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (project_id, match_pattern, start_date)
      );
      CREATE TABLE model_price_versions (
        project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        version bigint NOT NULL
      );
      CREATE TABLE cost_recomputations (
        project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        price_version bigint NOT NULL,
        status text NOT NULL CHECK (status IN ('running', 'done')),
        after_span_id uuid,
        spans_total bigint,
        spans_done bigint NOT NULL DEFAULT 0,
        spans_recosted bigint NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL,
        finished_at timestamptz
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE cost_recomputations; DROP TABLE model_price_versions; DROP TABLE model_definitions`);
  }
}
