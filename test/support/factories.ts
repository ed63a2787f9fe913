import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The shared fixtures sit beside the repository (../shared/fixtures). */
export const FIXTURES = resolve(__dirname, '../../../shared/fixtures');

export const readFixture = <T = unknown>(relative: string): T => JSON.parse(readFileSync(resolve(FIXTURES, relative), 'utf8')) as T;

export interface NativeEvent {
  id: string;
  type: string;
  timestamp: string;
  body: Record<string, unknown>;
}

const traceCreate = (eventId: string, traceId: string, name: string, at: string): NativeEvent => ({
  id: eventId,
  type: 'trace-create',
  timestamp: at,
  body: { id: traceId, name },
});

const spanCreate = (eventId: string, at: string, body: Record<string, unknown>): NativeEvent => ({
  id: eventId,
  type: 'span-create',
  timestamp: at,
  body,
});

/** A native batch of `traces` traces with `spansPerTrace` spans each; ids unique per call unless `seed` is given. */
export function nativeBatch(traces: number, spansPerTrace: number, seed: string = randomUUID()): { batch: NativeEvent[] } {
  const batch: NativeEvent[] = [];
  const t0 = Date.UTC(2026, 10, 1);
  for (let t = 0; t < traces; t++) {
    const traceId = `${seed}-t${t}`;
    const at = new Date(t0 + t).toISOString();
    batch.push(traceCreate(`${traceId}-e`, traceId, `trace ${t}`, at));
    for (let s = 0; s < spansPerTrace; s++) {
      batch.push(
        spanCreate(`${traceId}-s${s}-e`, at, {
          id: `${traceId}-s${s}`,
          traceId,
          name: `span ${s}`,
          startTime: new Date(t0 + t + s).toISOString(),
          input: { n: s },
        }),
      );
    }
  }
  return { batch };
}

/** A small native batch of one trace with exactly the id `traceId` and one span, timestamped now, as an SDK would send it. */
export function smallBatch(traceId: string): { batch: NativeEvent[] } {
  const at = new Date().toISOString();
  return {
    batch: [
      traceCreate(`${traceId}-e1`, traceId, `trace ${traceId}`, at),
      spanCreate(`${traceId}-e2`, at, { id: `${traceId}-s`, traceId, name: 'step', startTime: at }),
    ],
  };
}

/**
 * A support-answer trace (`traceId`) with one LLM span, `${traceId}-llm`, asked about a refund
 * and answering `output`: what the evaluator tests judge.
 */
export function llmCallEvents(traceId: string, output: string, metadata?: Record<string, unknown>): NativeEvent[] {
  const at = new Date().toISOString();
  return [
    traceCreate(`${traceId}-t`, traceId, 'support answer', at),
    spanCreate(`${traceId}-llm`, at, {
      id: `${traceId}-llm`,
      traceId,
      name: 'chat',
      type: 'LLM',
      startTime: at,
      input: { question: 'Can I get a refund after 20 days?' },
      output,
      ...(metadata ? { metadata } : {}),
    }),
  ];
}
