import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which version of each projection the live tables were built by (DESIGN "Projections"): a
 * processor whose code has a newer version rebuilds that projection beside the serving one and
 * records the new version with the swap. Deployments from before start at version 1, the only
 * version there was.
 */
export class ProjectionVersions1764520000000 implements MigrationInterface {
  name = 'ProjectionVersions1764520000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE projection_versions (
        projection text PRIMARY KEY,
        version integer NOT NULL CHECK (version >= 0),
        built_at timestamptz NOT NULL DEFAULT now()
      );
      INSERT INTO projection_versions (projection, version) VALUES ('telemetry', 1), ('model-stats', 1);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE projection_versions');
  }
}
