import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace list's `name` filter asks for the indexed prefix and the whole name
 * (TRACE_NAME_INDEX_PREFIX), two conditions the planner had no statistics for together: it
 * multiplied their guesses, expected a few dozen traces where a common name has tens of
 * thousands, and chose to read every trace of the name, sum each one's spans, then sort, over
 * the index that hands out the newest first (436 ms for a page at 50,000 traces, 1 ms with the
 * index; docs/BENCHMARKS.md "One machine's ceiling"). Statistics of the two expressions'
 * common values together make the estimate right. A rebuild's shadow tables copy them
 * (`createShadowTables`).
 */
export class TraceNameStatistics1767140000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE STATISTICS traces_lower_name_stats (mcv) ON (left(lower(name), 200)), (lower(name)) FROM traces`);
    await q.query('ANALYZE traces');
  }

  /** By table, not name: a rebuild's copy carries a name Postgres chose. */
  async down(q: QueryRunner): Promise<void> {
    const stats: { name: string }[] = await q.query(
      `SELECT format('%I.%I', stxnamespace::regnamespace, stxname) AS name FROM pg_statistic_ext WHERE stxrelid = 'traces'::regclass`,
    );
    for (const { name } of stats) await q.query(`DROP STATISTICS ${name}`);
  }
}
