import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace list's `name` filter matches in any case (issue 26): `lower(name)` ordered by time
 * within the project answers a page from its first rows, where a name no trace has would
 * otherwise read every trace of the project (42 ms at 100,000 traces, 0.05 ms with it). The
 * index holds the name's first 200 characters only: a btree row cannot exceed about 2.7 KB, and
 * a name may be far longer (a 48 KB name failed every insert of its trace). The list query
 * matches that prefix, then the whole name (TRACE_NAME_INDEX_PREFIX).
 */
export class TraceNameLowerIndex1766700000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX traces_project_lower_name_idx ON traces (project_id, left(lower(name), 200), "timestamp" DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX traces_project_lower_name_idx`);
  }
}
