import { randomBytes } from 'node:crypto';
import { MAX_BATCH_EVENTS } from '@app/domain';
import type { NativeEvent } from './factories';

export interface LargeTrace {
  traceId: string;
  spans: number;
  /** Characters of each span's input (random base64: Postgres cannot compress it away). */
  inputChars: number;
}

const T0 = Date.UTC(2026, 10, 1);

/**
 * The spans of one large trace as native batches of MAX_BATCH_EVENTS events (issue 24 item 1):
 * a root, a child of the root every 100 spans, the others under the last such child. Three spans
 * share each start time, so a page's order depends on the id as well.
 */
export function largeTraceBatches({ traceId, spans, inputChars }: LargeTrace): { batch: NativeEvent[] }[] {
  const at = new Date(T0).toISOString();
  const events: NativeEvent[] = [{ id: `${traceId}-e`, type: 'trace-create', timestamp: at, body: { id: traceId, name: 'large trace' } }];
  for (let i = 0; i < spans; i++) {
    const parent = i === 0 ? undefined : i % 100 === 0 ? `${traceId}-s0` : `${traceId}-s${i - (i % 100)}`;
    const start = T0 + Math.floor(i / 3);
    events.push({
      id: `${traceId}-s${i}-e`,
      type: 'span-create',
      timestamp: at,
      body: {
        id: `${traceId}-s${i}`,
        traceId,
        parentObservationId: parent,
        name: `span ${i}`,
        type: i % 100 === 0 ? 'CHAIN' : 'LLM',
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + 5).toISOString(),
        input: randomBytes(Math.ceil((inputChars * 3) / 4))
          .toString('base64')
          .slice(0, inputChars),
      },
    });
  }
  const batches: { batch: NativeEvent[] }[] = [];
  for (let i = 0; i < events.length; i += MAX_BATCH_EVENTS) batches.push({ batch: events.slice(i, i + MAX_BATCH_EVENTS) });
  return batches;
}

/** Posts the batches with `inFlight` requests at a time, as a busy SDK would; fails on any answer but 201. */
export async function postBatches(baseUrl: string, apiKey: string, batches: { batch: NativeEvent[] }[], inFlight = 4): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const body = JSON.stringify(batches[next++]);
      const res = await fetch(`${baseUrl}/api/v1/traces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body,
      });
      if (res.status !== 201) throw new Error(`ingestion answered ${res.status}: ${await res.text()}`);
      const answer = (await res.json()) as { errors: unknown[] };
      if (answer.errors.length) throw new Error(`ingestion refused events: ${JSON.stringify(answer.errors.slice(0, 3))}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** The process's resident memory now and at its peak, in MB, from /proc (Linux). */
export async function residentMb(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}
