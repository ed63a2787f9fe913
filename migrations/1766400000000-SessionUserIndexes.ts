import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The session and user reads (issue 26) group a project's traces by session or user and order
 * each one's traces by time: one index per grouping, ordered by time within it, carrying the
 * columns their filters read, replaces the plain (project_id, session_id) and (project_id,
 * user_id) indexes, whose every use it also serves (the trace list's userId and sessionId filters).
 */
export class SessionUserIndexes1766400000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX traces_project_session_time_idx ON traces (project_id, session_id, "timestamp", id) INCLUDE (user_id, environment) WHERE session_id IS NOT NULL;
      CREATE INDEX traces_project_user_time_idx ON traces (project_id, user_id, "timestamp", id) INCLUDE (session_id, environment) WHERE user_id IS NOT NULL;
      DROP INDEX traces_project_session_idx;
      DROP INDEX traces_project_user_idx;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX traces_project_user_idx ON traces (project_id, user_id) WHERE user_id IS NOT NULL;
      CREATE INDEX traces_project_session_idx ON traces (project_id, session_id) WHERE session_id IS NOT NULL;
      DROP INDEX traces_project_user_time_idx;
      DROP INDEX traces_project_session_time_idx;
    `);
  }
}
