import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scores of a dataset run as a whole (issue 31): they name no trace, so retention, which
 * removes telemetry with its trace, has nothing to go by; they are kept with the run, which
 * is configuration, and go with it. Upserted on the score's id.
 */
export class DatasetRunScores1767090000000 implements MigrationInterface {
  name = 'DatasetRunScores1767090000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dataset_run_scores (
        project_id uuid NOT NULL,
        id text NOT NULL,
        run_id uuid NOT NULL,
        name text NOT NULL,
        -- A number, a string or a boolean, as the score's data type says.
        value jsonb NOT NULL,
        data_type text NOT NULL,
        comment text,
        metadata jsonb,
        source text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, id),
        FOREIGN KEY (project_id, run_id) REFERENCES dataset_runs (project_id, id) ON DELETE CASCADE
      );
      CREATE INDEX dataset_run_scores_run_idx ON dataset_run_scores (project_id, run_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dataset_run_scores`);
  }
}
