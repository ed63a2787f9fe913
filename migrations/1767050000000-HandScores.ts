import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Score configs and scores given by hand (issue 30): a project's configs (a name is unique in
 * its project), the author of a hand score on its row, and the tombstones of removed hand
 * scores, so that a replayed message never brings one back. Rows written before have no
 * author, as scores from the API and evaluators never do: no rebuild is needed.
 */
export class HandScores1767050000000 implements MigrationInterface {
  name = 'HandScores1767050000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE score_configs (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        data_type text NOT NULL CHECK (data_type IN ('NUMERIC', 'CATEGORICAL', 'BOOLEAN')),
        min_value double precision,
        max_value double precision,
        categories jsonb NOT NULL DEFAULT '[]',
        description text,
        archived boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, name)
      )`);
    await q.query(`ALTER TABLE scores ADD COLUMN author_user_id text, ADD COLUMN author_email text`);
    await q.query(`
      CREATE TABLE deleted_scores (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        deleted_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE deleted_scores');
    await q.query('ALTER TABLE scores DROP COLUMN author_user_id, DROP COLUMN author_email');
    await q.query('DROP TABLE score_configs');
  }
}
