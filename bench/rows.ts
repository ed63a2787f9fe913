import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { Payload } from './payloads';

/**
 * Whether the spans of the requests a stage had accepted are rows, each once. The bench
 * counts what a reader can see, never the consumer's ack floor: a message the consumer
 * skipped counts as acked and is never applied (issue 12).
 */

export interface RowCheck {
  requests: number;
  /** Span rows the accepted requests make. */
  expected: number;
  /** Distinct spans of those requests that are rows. */
  visible: number;
  missing: number;
  /** Rows beyond the first for one span. */
  duplicates: number;
}

const TRACES_PER_QUERY = 5_000;

export async function checkRows(db: Pool, projectId: string, payload: Payload, requests: readonly number[]): Promise<RowCheck> {
  const traces = requests.flatMap((n) => payload.traceUuids(n));
  let rows = 0;
  let visible = 0;
  for (let i = 0; i < traces.length; i += TRACES_PER_QUERY) {
    const {
      rows: [r],
    } = await db.query<{ rows: number; visible: number }>(
      `SELECT count(*)::int AS rows, count(DISTINCT (trace_id, coalesce(external_id, otel_span_id)))::int AS visible
         FROM spans WHERE project_id = $1 AND trace_id = ANY($2::uuid[])`,
      [projectId, traces.slice(i, i + TRACES_PER_QUERY)],
    );
    rows += r.rows;
    visible += r.visible;
  }
  const expected = requests.length * payload.spansPerRequest;
  return { requests: requests.length, expected, visible, missing: expected - visible, duplicates: rows - visible };
}

/**
 * The row check once the processor says it is done (`drained`, the consumer's view: only when
 * to start counting), allowing `graceMs` for rows still on their way.
 */
export async function settledRows(
  db: Pool,
  projectId: string,
  payload: Payload,
  requests: readonly number[],
  drained: () => Promise<unknown>,
  graceMs = 10_000,
): Promise<RowCheck> {
  await drained();
  const deadline = performance.now() + graceMs;
  for (;;) {
    const check = await checkRows(db, projectId, payload, requests);
    if (!check.missing || performance.now() > deadline) return check;
    await sleep(500);
  }
}

/** All span rows of a project: cheap enough to poll while a drain runs. */
export async function projectSpanRows(db: Pool, projectId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [projectId]);
  return rows[0].n;
}

/** A difference is a failure of the stage, never a figure: one line saying what is missing or doubled. */
export function rowFailure(stage: string, c: RowCheck): string | null {
  if (!c.missing && !c.duplicates) return null;
  return `${stage}: ${c.missing.toLocaleString('en-US')} of ${c.expected.toLocaleString('en-US')} accepted spans never became rows, ${c.duplicates.toLocaleString('en-US')} stored twice`;
}
