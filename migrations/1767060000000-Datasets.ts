import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Datasets and experiments (issue 31). Datasets, their items and runs are configuration,
 * written by the API and durable on its 2xx; every change of an item adds a version, so a
 * dataset can be read as it was at a time. Run items are telemetry: they travel on INGEST and
 * the telemetry projection writes `dataset_run_items`, so rebuilds, exports and retention
 * (with the run item's trace) cover them.
 */
export class Datasets1767060000000 implements MigrationInterface {
  name = 'Datasets1767060000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE datasets (
        project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        id uuid NOT NULL,
        name text NOT NULL,
        description text,
        metadata jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, id),
        UNIQUE (project_id, name)
      );

      -- An item's id is the client's (Langfuse: unique in the project, never reused across datasets).
      CREATE TABLE dataset_items (
        project_id uuid NOT NULL,
        id text NOT NULL,
        dataset_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id),
        FOREIGN KEY (project_id, dataset_id) REFERENCES datasets (project_id, id) ON DELETE CASCADE
      );
      CREATE INDEX dataset_items_dataset_idx ON dataset_items (project_id, dataset_id, id);

      -- Every state an item had, from valid_from on: the newest at or before a time is the item then.
      CREATE TABLE dataset_item_versions (
        project_id uuid NOT NULL,
        item_id text NOT NULL,
        valid_from timestamptz NOT NULL,
        input jsonb,
        expected_output jsonb,
        metadata jsonb,
        source_trace_id text,
        source_span_id text,
        status text NOT NULL CHECK (status IN ('ACTIVE', 'ARCHIVED')),
        PRIMARY KEY (project_id, item_id, valid_from),
        FOREIGN KEY (project_id, item_id) REFERENCES dataset_items (project_id, id) ON DELETE CASCADE
      );

      CREATE TABLE dataset_runs (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        dataset_id uuid NOT NULL,
        name text NOT NULL,
        description text,
        metadata jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, id),
        UNIQUE (project_id, dataset_id, name),
        FOREIGN KEY (project_id, dataset_id) REFERENCES datasets (project_id, id) ON DELETE CASCADE
      );

      -- Written by the telemetry projection only; no foreign keys, as rows of a rebuild's shadow copy have none either.
      CREATE TABLE dataset_run_items (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        run_id uuid NOT NULL,
        dataset_item_id text NOT NULL,
        trace_id uuid NOT NULL,
        span_id uuid,
        -- The OTel ids when the client named an OTel trace and span (Langfuse's clients read them back so).
        otel_trace_id text,
        otel_span_id text,
        created_at timestamptz NOT NULL,
        version text NOT NULL,
        PRIMARY KEY (project_id, id)
      );
      CREATE INDEX dataset_run_items_run_idx ON dataset_run_items (project_id, run_id, dataset_item_id);
      CREATE INDEX dataset_run_items_trace_idx ON dataset_run_items (project_id, trace_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dataset_run_items, dataset_runs, dataset_item_versions, dataset_items, datasets`);
  }
}
