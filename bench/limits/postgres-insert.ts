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
export type RowShape = 'fat' | 'lean';

export interface InsertFigures {
  method: InsertMethod;
  /** `fat`: the projection's own `spans` rows; `lean`: the same spans as lean rows (the reference issue 25 asked for). */
  shape: RowShape;
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
  { name: 'versions', type: 'jsonb', of: (d) => storedVersions(d.versions) },
];

const COLUMN_LIST = COLUMNS.map((c) => `"${c.name}"`).join(', ');

/** A span's attributes without the ones its input or output was taken from as they are: the copies a lean row does not keep. */
function attributesWithoutCopies(d: SpanDelta): object | null {
  const { attributes, input, output } = d.values;
  if (!attributes) return null;
  return Object.fromEntries(Object.entries(attributes).filter(([, v]) => v === null || (v !== input && v !== output)));
}

/**
 * The lean row of the same span (issue 25): ids, trace, parent, name, type, model, tokens,
 * cost, times, input, output and the attributes without the input/output copies; no
 * metadata, versions or model parameters.
 */
const LEAN_COLUMNS: Column[] = [
  { name: 'project_id', type: 'uuid', of: (d) => d.projectId },
  { name: 'id', type: 'uuid', of: (d) => d.id },
  { name: 'trace_id', type: 'uuid', of: (d) => d.values.traceId ?? null },
  { name: 'parent_id', type: 'uuid', of: (d) => d.values.parentId ?? null },
  { name: 'name', type: 'text', of: (d) => d.values.name ?? null },
  { name: 'type', type: 'text', of: (d) => d.values.type ?? null },
  { name: 'model', type: 'text', of: (d) => d.values.model ?? null },
  { name: 'prompt_tokens', type: 'bigint', of: (d) => d.values.promptTokens ?? null },
  { name: 'completion_tokens', type: 'bigint', of: (d) => d.values.completionTokens ?? null },
  { name: 'cost', type: 'double precision', of: (d) => d.values.cost ?? null },
  { name: 'start_time', type: 'timestamptz', of: (d) => d.values.startTime ?? null },
  { name: 'end_time', type: 'timestamptz', of: (d) => d.values.endTime ?? null },
  { name: 'input', type: 'jsonb', of: (d) => d.values.input ?? null },
  { name: 'output', type: 'jsonb', of: (d) => d.values.output ?? null },
  { name: 'attributes', type: 'jsonb', of: attributesWithoutCopies },
];

/** The statement sizes of each reference: the issue's lean upsert took 500 rows at a time; the fat one has always taken 2,000. */
const LEAN_ROWS_PER_STATEMENT = 500;
const FAT_ROWS_PER_STATEMENT = 2_000;

/** Where each shape's rows go: `fat` a fresh copy of `spans` (same indexes and checks), `lean` a table with a primary key and one trace index. */
const SHAPES: Record<RowShape, { columns: Column[]; create: string; onConflict: string }> = {
  fat: { columns: COLUMNS, create: 'CREATE TABLE bench_raw_spans (LIKE spans INCLUDING ALL)', onConflict: '' },
  lean: {
    columns: LEAN_COLUMNS,
    create: `CREATE TABLE bench_raw_spans (${LEAN_COLUMNS.map((c) => `"${c.name}" ${c.type}`).join(', ')}, PRIMARY KEY (project_id, id));
             CREATE INDEX ON bench_raw_spans (project_id, trace_id)`,
    // An upsert, as the projection's write is: with new ids it never conflicts, but it checks.
    onConflict: ` ON CONFLICT (project_id, id) DO UPDATE SET ${LEAN_COLUMNS.slice(2)
      .map((c) => `"${c.name}" = excluded."${c.name}"`)
      .join(', ')}`,
  },
};

const isArray = (c: Column): boolean => c.type.endsWith('[]');
const arrayLiteral = (values: unknown[]): string => `{${values.map((v) => `"${String(v).replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/** A value as a CSV field: NULL is an empty unquoted field, anything else is quoted. */
function csvField(c: Column, d: SpanDelta): string {
  const v = c.name === 'id' ? randomUUID() : c.of(d);
  if (v === null || v === undefined) return '';
  const text =
    c.type === 'jsonb' ? JSON.stringify(v) : isArray(c) ? arrayLiteral(v as unknown[]) : v instanceof Date ? v.toISOString() : String(v);
  return `"${text.replace(/"/g, '""')}"`;
}

/** One statement's SQL and parameters for `deltas` in `columns`, each row under a new id. */
const STATEMENTS: Record<
  Exclude<InsertMethod, 'copy_then_insert'>,
  (columns: Column[], onConflict: string, deltas: SpanDelta[]) => [string, unknown[]]
> = {
  // STACK_NOTES' fastest for its rows: one array parameter per column.
  // An array column travels as array literals in a text[] (unnest flattens an array of arrays) and is cast back.
  unnest: (columns, onConflict, deltas) => [
    `INSERT INTO bench_raw_spans (${columns.map((c) => `"${c.name}"`).join(', ')})
     SELECT ${columns.map((c, i) => (isArray(c) ? `u.c${i}::${c.type}` : `u.c${i}`)).join(', ')}
       FROM unnest(${columns.map((c, i) => `$${i + 1}::${isArray(c) ? 'text' : c.type}[]`).join(', ')}) AS u (${columns.map((_, i) => `c${i}`).join(', ')})${onConflict}`,
    columns.map((c) =>
      deltas.map((d) => {
        if (c.name === 'id') return randomUUID();
        const v = c.of(d);
        if (v === null || v === undefined) return null;
        if (isArray(c)) return arrayLiteral(v as unknown[]);
        return c.type === 'jsonb' ? JSON.stringify(v) : v;
      }),
    ),
  ],
  // The rows as one JSON document of objects (what the projection used until it passed positional arrays, issue 25).
  jsonb_to_recordset: (columns, onConflict, deltas) => [
    `INSERT INTO bench_raw_spans (${columns.map((c) => `"${c.name}"`).join(', ')}) SELECT ${columns.map((c) => `r."${c.name}"`).join(', ')}
       FROM jsonb_to_recordset($1::jsonb) AS r (${columns.map((c) => `"${c.name}" ${c.type}`).join(', ')})${onConflict}`,
    // A missing key reads as NULL, so null values are left out, as the projection leaves them.
    [
      JSON.stringify(
        deltas.map((d) =>
          Object.fromEntries(columns.map((c) => [c.name, c.name === 'id' ? randomUUID() : c.of(d)]).filter(([, v]) => v !== null)),
        ),
      ),
    ],
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

async function insertWith(
  db: PoolClient,
  shape: RowShape,
  method: InsertMethod,
  deltas: SpanDelta[],
  rows: number,
  rowsPerStatement: number,
): Promise<InsertFigures> {
  const { columns, create, onConflict } = SHAPES[shape];
  await db.query(create);
  if (method === 'copy_then_insert') await db.query('CREATE UNLOGGED TABLE bench_staging_spans (LIKE spans INCLUDING DEFAULTS)');
  try {
    const started = performance.now();
    for (let done = 0; done < rows; done += rowsPerStatement) {
      const chunk = Array.from({ length: Math.min(rowsPerStatement, rows - done) }, (_, r) => deltas[(done + r) % deltas.length]);
      if (method === 'copy_then_insert') {
        await copyThenInsert(db, chunk);
        continue;
      }
      const [sql, params] = STATEMENTS[method](columns, onConflict, chunk);
      await db.query(sql, params);
    }
    const seconds = (performance.now() - started) / 1_000;
    return { method, shape, rows, rowsPerStatement, seconds, rowsPerS: rows / seconds };
  } finally {
    await db.query('DROP TABLE IF EXISTS bench_raw_spans, bench_staging_spans');
  }
}

/**
 * The ceiling of the projection's writes on this machine, on one connection (the projection
 * uses one), timed from the rows in memory to the commit, serialization included:
 * - `lean` (the limit issue 25 measures the drain against): the span rows as lean rows, one
 *   upsert of 500 a statement, with `unnest` and with `jsonb_to_recordset`;
 * - `fat` (kept for history): the rows the projection writes today, plain INSERT into a fresh
 *   copy of `spans` (same indexes and checks) without conflict handling or merge, 2,000 a
 *   statement, in each of three ways of passing many rows.
 * In both, the fastest way is the shape's limit.
 */
export async function measurePostgresInsert(pool: Pool, payload: Payload, projectId: string, rows: number): Promise<InsertFigures[]> {
  const { spans } = otlpToFacts(JSON.parse(payload.render(0xffe00000)), { projectId, receivedAt: new Date().toISOString() });
  const db = await pool.connect();
  try {
    const figures: InsertFigures[] = [];
    for (const method of Object.keys(STATEMENTS) as InsertMethod[])
      figures.push(await insertWith(db, 'lean', method, spans, rows, LEAN_ROWS_PER_STATEMENT));
    for (const method of [...Object.keys(STATEMENTS), 'copy_then_insert'] as InsertMethod[])
      figures.push(await insertWith(db, 'fat', method, spans, rows, FAT_ROWS_PER_STATEMENT));
    return figures;
  } finally {
    db.release();
  }
}
