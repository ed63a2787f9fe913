import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace list's score filter with bounds (`scoreName` with `minScore`/`maxScore`) compares a
 * score's number (SCORE_NUMBER in trace-query.ts, written out here as it is there: the planner
 * matches the expression, not its name) with the bounds. Without statistics of that expression
 * the planner guessed a fraction of the matches (500 where 9,300 scores of a name were at least
 * 0.9 at ten million spans), read every score of the name, looked each trace up and sorted them:
 * 1.25 s for a page. Statistics of the name and the number together make the estimate right
 * (9,500), and the page walks the newest traces, checking each one's scores by index
 * (docs/BENCHMARKS.md "One machine's ceiling"). A rebuild's shadow tables copy them
 * (`createShadowTables`).
 */
export class ScoreNumberStatistics1767180000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE STATISTICS scores_name_number_stats (mcv) ON name,
         (CASE jsonb_typeof(value) WHEN 'number' THEN (value #>> '{}')::float8 WHEN 'boolean' THEN (value #>> '{}')::boolean::int::float8 END)
         FROM scores`,
    );
    await q.query('ANALYZE scores');
  }

  /** By table, not name: a rebuild's copy carries a name Postgres chose. */
  async down(q: QueryRunner): Promise<void> {
    const stats: { name: string }[] = await q.query(
      `SELECT format('%I.%I', stxnamespace::regnamespace, stxname) AS name FROM pg_statistic_ext WHERE stxrelid = 'scores'::regclass`,
    );
    for (const { name } of stats) await q.query(`DROP STATISTICS ${name}`);
  }
}
