import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Prompt templates (SPEC 4.5, 4.6; CONTRACT "Prompt templates"): versions per project and
 * name, and the labels a client set. Configuration, not telemetry: retention never deletes
 * them; they go with their project.
 *
 * - The primary key is the UNIQUE (project_id, name, version) that keeps versions free of
 *   duplicates under concurrent pushes: a push inserts max + 1 and tries again on conflict,
 *   so the database, not a process, decides who gets which number, and a rolled-back push
 *   leaves no gap.
 * - A label is on at most one version of a name (its primary key); `latest` is computed from
 *   the versions and can never be stored.
 * - Names and labels compare byte-wise (COLLATE "C"): the list's order and its cursor do
 *   not depend on the server's locale, and the primary key serves both.
 */
export class PromptTemplates1764900000000 implements MigrationInterface {
  name = 'PromptTemplates1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE prompt_versions (
        project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        name text COLLATE "C" NOT NULL CHECK (char_length(name) BETWEEN 1 AND 256),
        version integer NOT NULL CHECK (version >= 1),
        template jsonb NOT NULL CHECK (jsonb_typeof(template) IN ('string', 'array')),
        config jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(config) = 'object'),
        commit_message text,
        created_by_api_key_id uuid,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, name, version)
      );

      CREATE TABLE prompt_labels (
        project_id uuid NOT NULL,
        name text COLLATE "C" NOT NULL,
        label text COLLATE "C" NOT NULL CHECK (label <> 'latest'),
        version integer NOT NULL,
        PRIMARY KEY (project_id, name, label),
        FOREIGN KEY (project_id, name, version) REFERENCES prompt_versions (project_id, name, version) ON DELETE CASCADE
      );
      CREATE INDEX prompt_labels_version_idx ON prompt_labels (project_id, name, version);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE prompt_labels, prompt_versions');
  }
}
