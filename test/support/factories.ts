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

/** A native batch of `traces` traces with `spansPerTrace` spans each; ids unique per call unless `seed` is given. */
export function nativeBatch(traces: number, spansPerTrace: number, seed: string = randomUUID()): { batch: NativeEvent[] } {
  const batch: NativeEvent[] = [];
  const t0 = Date.UTC(2026, 10, 1);
  for (let t = 0; t < traces; t++) {
    const traceId = `${seed}-t${t}`;
    batch.push({ id: `${traceId}-e`, type: 'trace-create', timestamp: new Date(t0 + t).toISOString(), body: { id: traceId, name: `trace ${t}` } });
    for (let s = 0; s < spansPerTrace; s++) {
      batch.push({
        id: `${traceId}-s${s}-e`,
        type: 'span-create',
        timestamp: new Date(t0 + t).toISOString(),
        body: { id: `${traceId}-s${s}`, traceId, name: `span ${s}`, startTime: new Date(t0 + t + s).toISOString(), input: { n: s } },
      });
    }
  }
  return { batch };
}
