import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Monitors (issue 16): a project's alert rules over the overview stats, their current state
 * (null until first evaluated) and the history of their state changes. The processor writes
 * state and history; the API writes the settings.
 */
export class Monitors1765000000001 implements MigrationInterface {
  name = 'Monitors1765000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE monitors (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        name text NOT NULL,
        metric text NOT NULL CHECK (metric IN ('error_rate', 'latency_p95', 'cost', 'calls', 'score_mean', 'score_pass_rate')),
        score_name text,
        filter_model text,
        filter_span_type text,
        filter_trace_name text,
        window_seconds integer NOT NULL CHECK (window_seconds BETWEEN 300 AND 604800),
        comparison text NOT NULL CHECK (comparison IN ('>', '>=', '<', '<=')),
        threshold double precision NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        state text CHECK (state IN ('OK', 'ALERT', 'NO_DATA')),
        value double precision,
        evaluated_at timestamptz,
        window_end timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX monitors_project_idx ON monitors (project_id, created_at);

      CREATE TABLE monitor_history (
        id bigserial PRIMARY KEY,
        monitor_id uuid NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
        state text NOT NULL CHECK (state IN ('OK', 'ALERT', 'NO_DATA')),
        previous_state text CHECK (previous_state IN ('OK', 'ALERT', 'NO_DATA')),
        value double precision,
        threshold double precision NOT NULL,
        comparison text NOT NULL,
        window_start timestamptz NOT NULL,
        window_end timestamptz NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX monitor_history_monitor_idx ON monitor_history (monitor_id, id DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE monitor_history, monitors');
  }
}
