import type { QueryRunner } from 'typeorm';

/** A row a stored message says must exist, unless its trace was deleted. */
export interface ExpectedRow {
  projectId: string;
  table: RowTable;
  id: string;
  traceId: string | null;
  /** The stream sequence of a message that writes it. */
  seq: number;
}

export const ROW_TABLES = ['traces', 'spans', 'scores'] as const;
export type RowTable = (typeof ROW_TABLES)[number];

export interface RowCounts {
  /** Distinct rows the messages write, less those of deleted traces. */
  expected: number;
  /** Rows the table holds. */
  stored: number;
  /** Expected and not stored. */
  missing: number;
  /** Stored and written by no message read (null when not every message was read). */
  extra: number | null;
}

export type ProjectRowCounts = Record<RowTable, RowCounts>;

/** A hand score removed later (a tombstone in `deleted_scores`) is not a row its messages must write. */
const notRemoved = (table: RowTable): string =>
  table === 'scores'
    ? '\n            AND NOT EXISTS (SELECT 1 FROM deleted_scores x WHERE x.project_id = e.project_id AND x.id = e.id)'
    : '';

/** Rows per insert: large enough to load a million spans in seconds, small enough to keep statements modest. */
const ROWS_PER_INSERT = 5_000;

/**
 * The rows a stream's messages write, in a temporary table of one session, compared in SQL
 * with the projection's tables: the check holds a million ids without holding them in memory.
 */
export class ExpectedRows {
  private pending: ExpectedRow[] = [];

  private constructor(private readonly runner: QueryRunner) {}

  static async open(runner: QueryRunner): Promise<ExpectedRows> {
    await runner.query(
      `CREATE TEMP TABLE IF NOT EXISTS verify_expected (project_id uuid NOT NULL, tbl text NOT NULL, id uuid NOT NULL, trace_id uuid, seq bigint NOT NULL);
       TRUNCATE verify_expected; DROP INDEX IF EXISTS verify_expected_idx`,
    );
    return new ExpectedRows(runner);
  }

  async add(rows: ExpectedRow[]): Promise<void> {
    this.pending.push(...rows);
    if (this.pending.length >= ROWS_PER_INSERT) await this.flush();
  }

  /** Indexes what was loaded; call once, after the last `add`. */
  async seal(): Promise<void> {
    await this.flush();
    await this.runner.query('CREATE INDEX verify_expected_idx ON verify_expected (tbl, project_id, id); ANALYZE verify_expected');
  }

  /** Per project and table; `withExtra` only when every message that could write a row was read. */
  async compare(projectIds: string[], withExtra: boolean): Promise<Map<string, ProjectRowCounts>> {
    const result = new Map<string, ProjectRowCounts>();
    for (const projectId of projectIds) {
      result.set(
        projectId,
        Object.fromEntries(
          ROW_TABLES.map((t) => [t, { expected: 0, stored: 0, missing: 0, extra: withExtra ? 0 : null }]),
        ) as ProjectRowCounts,
      );
    }
    for (const table of ROW_TABLES) {
      const rows: { project_id: string; expected: number; missing: number }[] = await this.runner.query(
        `SELECT e.project_id, count(*)::int AS expected,
                count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM ${table} r WHERE r.project_id = e.project_id AND r.id = e.id))::int AS missing
           FROM (SELECT DISTINCT ON (project_id, id) project_id, id, trace_id FROM verify_expected WHERE tbl = $1 AND project_id = ANY($2::uuid[])) e
          WHERE NOT EXISTS (SELECT 1 FROM deleted_traces d WHERE d.project_id = e.project_id AND d.id = e.trace_id)${notRemoved(table)}
          GROUP BY e.project_id`,
        [table, projectIds],
      );
      for (const r of rows)
        Object.assign((result.get(r.project_id) as ProjectRowCounts)[table], { expected: r.expected, missing: r.missing });
      const stored: { project_id: string; stored: number; extra: number }[] = await this.runner.query(
        `SELECT r.project_id, count(*)::int AS stored,
                count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM verify_expected e WHERE e.tbl = $1 AND e.project_id = r.project_id AND e.id = r.id))::int AS extra
           FROM ${table} r WHERE r.project_id = ANY($2::uuid[]) GROUP BY r.project_id`,
        [table, projectIds],
      );
      for (const r of stored)
        Object.assign((result.get(r.project_id) as ProjectRowCounts)[table], {
          stored: r.stored,
          ...(withExtra ? { extra: r.extra } : {}),
        });
    }
    return result;
  }

  /** The sequences of the messages that write a missing row, per project, ascending. */
  async seqsWritingMissingRows(): Promise<Map<string, number[]>> {
    const bySeq = new Map<string, number[]>();
    for (const table of ROW_TABLES) {
      const rows: { project_id: string; seq: string }[] = await this.runner.query(
        `SELECT DISTINCT e.project_id, e.seq FROM verify_expected e
          WHERE e.tbl = $1
            AND NOT EXISTS (SELECT 1 FROM ${table} r WHERE r.project_id = e.project_id AND r.id = e.id)
            AND NOT EXISTS (SELECT 1 FROM deleted_traces d WHERE d.project_id = e.project_id AND d.id = e.trace_id)${notRemoved(table)}`,
        [table],
      );
      for (const r of rows) bySeq.set(r.project_id, [...(bySeq.get(r.project_id) ?? []), Number(r.seq)]);
    }
    for (const [projectId, seqs] of bySeq)
      bySeq.set(
        projectId,
        [...new Set(seqs)].sort((a, b) => a - b),
      );
    return bySeq;
  }

  async close(): Promise<void> {
    await this.runner.query('DROP TABLE IF EXISTS verify_expected');
  }

  /** The projects with rows in any table, for a check over every project. */
  static async projectsWithRows(runner: QueryRunner): Promise<string[]> {
    const rows: { project_id: string }[] = await runner.query(
      ROW_TABLES.map((t) => `SELECT DISTINCT project_id FROM ${t}`).join(' UNION '),
    );
    return rows.map((r) => r.project_id);
  }

  private async flush(): Promise<void> {
    if (!this.pending.length) return;
    const rows = this.pending;
    this.pending = [];
    await this.runner.query(
      'INSERT INTO verify_expected SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::bigint[])',
      [rows.map((r) => r.projectId), rows.map((r) => r.table), rows.map((r) => r.id), rows.map((r) => r.traceId), rows.map((r) => r.seq)],
    );
  }
}
