import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A trace read answers a page of spans in start order after a cursor (TRACE_READ_LIMITS):
 * this index hands Postgres each page's keys in order, with LIMIT, instead of sorting every
 * span of a 100,000-span trace for each page. It replaces the index on (project_id, trace_id),
 * which it serves too.
 */
export class TracePageIndex1766000024100 implements MigrationInterface {
  name = 'TracePageIndex1766000024100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX spans_project_trace_start_idx ON spans (project_id, trace_id, start_time, id);
      DROP INDEX spans_project_trace_idx;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX spans_project_trace_idx ON spans (project_id, trace_id);
      DROP INDEX spans_project_trace_start_idx;
    `);
  }
}
