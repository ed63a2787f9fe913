import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { type LoadFigures, runLoad } from '../load';
import { type Payload, SPANS_PER_TRACE, takeRequestNumber } from '../payloads';
import { type RowCheck, settledRows } from '../rows';
import { percentile } from '../stats';

export interface EndToEndFigures {
  /** The steady rate asked for, in spans per second (probes included). */
  targetSpansPerS: number;
  background: LoadFigures;
  probes: number;
  /** What the probes added to the background load. */
  probeSpansPerS: number;
  /** Probes whose trace was not visible within the probe timeout. */
  timedOut: number;
  /** Probes the API refused or that failed on the way. */
  failed: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  /** Reads are spaced by this share of the time waited so far (at least MIN_POLL_MS): the relative resolution. */
  pollShare: number;
  /** Reads the probes made while waiting: load on top of the ingestion. */
  reads: number;
  /** Every accepted request's spans (background and probes) a row, once: anything else fails the stage. */
  rows: RowCheck;
}

export interface EndToEndTarget {
  baseUrl: string;
  apiKey: string;
  apiPid: number | null;
  projectId: string;
  db: Pool;
  /** Resolves when the processor has nothing left to apply (a hint of when to count rows). */
  drained(): Promise<unknown>;
}

const MIN_POLL_MS = 10;
const POLL_SHARE = 0.1;
const PROBE_TIMEOUT_MS = 30_000;

/**
 * Visibility as a client sees it. A steady background load runs at the given rate; beside
 * it, a few probe requests a second are sent like any other, and from the moment each one
 * is answered its last trace is read (`GET /api/v1/traces/:id`, no minSeq) until it shows
 * all its spans. The figure is answer → first complete read. Reads are spaced by a tenth
 * of the time waited so far: fine-grained while it is short, and a slow pipeline is not
 * buried under the probes' own reads (a fixed 20 ms poll made ~1,000 reads/s when
 * visibility took seconds), at the price of ±10% on long waits. Afterwards every accepted
 * request's spans, background and probes, must be rows exactly once.
 */
export async function measureEndToEnd(
  target: EndToEndTarget,
  payload: Payload,
  spansPerS: number,
  connections: number,
  durationS: number,
  probesPerS = 4,
): Promise<EndToEndFigures> {
  const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
  const backgroundRate = Math.max(1, Math.round(spansPerS / payload.items - probesPerS));
  const latencies: number[] = [];
  const accepted: number[] = [];
  let timedOut = 0;
  let failed = 0;
  let reads = 0;

  const probe = async (): Promise<void> => {
    const n = takeRequestNumber();
    const res = await fetch(`${target.baseUrl}${payload.path}`, { method: 'POST', headers, body: payload.render(n) });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`a probe was answered ${res.status}`);
    accepted.push(n);
    const answered = performance.now();
    const traceId = payload.traceIds(n).at(-1);
    while (performance.now() - answered < PROBE_TIMEOUT_MS) {
      reads++;
      const read = await fetch(`${target.baseUrl}/api/v1/traces/${traceId}`, { headers });
      const body = (await read.json()) as { spans?: unknown[] };
      if (read.ok && body.spans?.length === SPANS_PER_TRACE) {
        latencies.push(performance.now() - answered);
        return;
      }
      await sleep(Math.max(MIN_POLL_MS, (performance.now() - answered) * POLL_SHARE));
    }
    timedOut++;
  };

  const probing = (async () => {
    const running: Promise<void>[] = [];
    const end = performance.now() + durationS * 1_000;
    while (performance.now() < end) {
      running.push(probe().catch(() => void failed++));
      await sleep(1_000 / probesPerS);
    }
    await Promise.all(running);
  })();
  const background = await runLoad(
    {
      baseUrl: target.baseUrl,
      apiKey: target.apiKey,
      payload,
      connections,
      durationS,
      overallRate: backgroundRate,
      rssPid: target.apiPid,
      onAccepted: (n) => accepted.push(n),
    },
    0,
  );
  await probing;
  const rows = await settledRows(target.db, target.projectId, payload, accepted, target.drained);
  return {
    targetSpansPerS: (backgroundRate + probesPerS) * payload.items,
    background,
    probes: latencies.length + timedOut + failed,
    probeSpansPerS: ((latencies.length + timedOut + failed) * payload.items) / durationS,
    timedOut,
    failed,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies.length ? Math.max(...latencies) : null,
    pollShare: POLL_SHARE,
    reads,
    rows,
  };
}
