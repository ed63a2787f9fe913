import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Pool, PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SpanDelta } from '@app/domain';
import { otlpToFacts } from '@app/otlp';
import { SPAN_FIELD_COLUMNS, storedVersions } from '@app/projections';
import type { Payload } from '../payloads';

export type InsertMethod = 'unnest' | 'jsonb_to_recordset' | 'copy_then_insert';

export interface InsertFigures {
  method: InsertMethod;
  rows: number;
  rowsPerStatement: number;
  seconds: number;
  rowsPerS: number;
}

interface Column {
  name: string;
  type: string;
  /** The value as the projection has it: objects for jsonb columns. */
  of(d: SpanDelta): unknown;
}

/** The columns the projection writes into `spans`, from the same field list it uses. */
const COLUMNS: Column[] = [
  { name: 'project_id', type: 'uuid', of: (d) => d.projectId },
  { name: 'id', type: 'uuid', of: (d) => d.id },
  { name: 'otel_span_id', type: 'text', of: (d) => d.otelSpanId },
  { name: 'external_id', type: 'text', of: (d) => d.externalId },
  { name: 'created_at', type: 'timestamptz', of: (d) => d.createdAt },
  ...SPAN_FIELD_COLUMNS.map(({ field, column, type }) => ({ name: column, type, of: (d: SpanDelta) => d.values[field] ?? null })),
  { name: 'versions', type: 'jsonb', of: (d) => storedVersions(d.versions, SPAN_FIELD_COLUMNS) },
];

const COLUMN_LIST = COLUMNS.map((c) => `"${c.name}"`).join(', ');

/** A value as a CSV field: NULL is an empty unquoted field, anything else is quoted. */
function csvField(c: Column, d: SpanDelta): string {
  const v = c.name === 'id' ? randomUUID() : c.of(d);
  if (v === null || v === undefined) return '';
  const text = c.type === 'jsonb' ? JSON.stringify(v) : v instanceof Date ? v.toISOString() : String(v);
  return `"${text.replace(/"/g, '""')}"`;
}

/** One statement's SQL and parameters for `deltas`, each row under a new id. */
const STATEMENTS: Record<Exclude<InsertMethod, 'copy_then_insert'>, (deltas: SpanDelta[]) => [string, unknown[]]> = {
  // STACK_NOTES' fastest for its rows: one array parameter per column.
  unnest: (deltas) => [
    `INSERT INTO bench_raw_spans (${COLUMN_LIST}) SELECT * FROM unnest(${COLUMNS.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ')})`,
    COLUMNS.map((c) =>
      deltas.map((d) => {
        if (c.name === 'id') return randomUUID();
        const v = c.of(d);
        return c.type === 'jsonb' && v !== null ? JSON.stringify(v) : v;
      }),
    ),
  ],
  // What the projection uses: the rows as one JSON document.
  jsonb_to_recordset: (deltas) => [
    `INSERT INTO bench_raw_spans (${COLUMN_LIST}) SELECT ${COLUMNS.map((c) => `r."${c.name}"`).join(', ')}
       FROM jsonb_to_recordset($1::jsonb) AS r (${COLUMNS.map((c) => `"${c.name}" ${c.type}`).join(', ')})`,
    // A missing key reads as NULL, so null values are left out, as the projection leaves them.
    [JSON.stringify(deltas.map((d) => Object.fromEntries(COLUMNS.map((c) => [c.name, c.name === 'id' ? randomUUID() : c.of(d)]).filter(([, v]) => v !== null))))],
  ],
};

/**
 * What issue 14 asked to look at: the rows streamed with COPY (CSV) into an unlogged staging
 * table without indexes, then moved by one INSERT … SELECT, as a merge from staging would be.
 */
async function copyThenInsert(db: PoolClient, chunk: SpanDelta[]): Promise<void> {
  await db.query('TRUNCATE bench_staging_spans');
  const lines = chunk.map((d) => `${COLUMNS.map((c) => csvField(c, d)).join(',')}\n`);
  await pipeline(Readable.from(lines), db.query(copyFrom(`COPY bench_staging_spans (${COLUMN_LIST}) FROM STDIN WITH (FORMAT csv)`)));
  await db.query(`INSERT INTO bench_raw_spans (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM bench_staging_spans`);
}

async function insertWith(db: PoolClient, method: InsertMethod, deltas: SpanDelta[], rows: number, rowsPerStatement: number): Promise<InsertFigures> {
  await db.query('CREATE TABLE bench_raw_spans (LIKE spans INCLUDING ALL)');
  if (method === 'copy_then_insert') await db.query('CREATE UNLOGGED TABLE bench_staging_spans (LIKE spans INCLUDING DEFAULTS)');
  try {
    const started = performance.now();
    for (let done = 0; done < rows; done += rowsPerStatement) {
      const chunk = Array.from({ length: Math.min(rowsPerStatement, rows - done) }, (_, r) => deltas[(done + r) % deltas.length]);
      if (method === 'copy_then_insert') {
        await copyThenInsert(db, chunk);
        continue;
      }
      const [sql, params] = STATEMENTS[method](chunk);
      await db.query(sql, params);
    }
    const seconds = (performance.now() - started) / 1_000;
    return { method, rows, rowsPerStatement, seconds, rowsPerS: rows / seconds };
  } finally {
    await db.query('DROP TABLE IF EXISTS bench_raw_spans, bench_staging_spans');
  }
}

/**
 * The ceiling of the projection's writes on this machine: the span rows the projection
 * would write for our payload, inserted multi-row on one connection (the projection uses
 * one), into a fresh copy of `spans` (same indexes and checks), plain INSERT without
 * conflict handling or merge. Timed from the rows in memory to the commit, serialization
 * included, for each way of passing many rows; the fastest is the limit.
 */
export async function measurePostgresInsert(pool: Pool, payload: Payload, projectId: string, rows: number, rowsPerStatement = 2_000): Promise<InsertFigures[]> {
  const { spans } = otlpToFacts(JSON.parse(payload.render(0xffe00000)), { projectId, receivedAt: new Date().toISOString() });
  const db = await pool.connect();
  try {
    const figures: InsertFigures[] = [];
    for (const method of [...Object.keys(STATEMENTS), 'copy_then_insert'] as InsertMethod[]) figures.push(await insertWith(db, method, spans, rows, rowsPerStatement));
    return figures;
  } finally {
    db.release();
  }
}
