import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { type LoadFigures, runLoad } from '../load';
import type { ProjectorWatch } from '../../test/support/projector-watch';
import type { Payload } from '../payloads';
import { type RowCheck, checkRows, settledRows } from '../rows';
import type { EndToEndTarget } from './end-to-end';

export interface BurstFigures {
  load: LoadFigures;
  /** Spans the burst's 2xx answers acknowledged. */
  acceptedSpans: number;
  /** Spans of the burst already rows when the load stopped. */
  visibleAtEnd: number;
  /** From the load's end until every acknowledged span of the burst could be read; null when `timeoutS` passed first. */
  visibleAfterS: number | null;
  /** The same, until the trace of the last request answered could be read. */
  lastTraceAfterS: number | null;
  /** Rows of the burst per second during the load and the catch-up after it. */
  appliedSpansPerS: number;
  /** Every acknowledged span a row, once: anything else fails the stage. */
  rows: RowCheck;
}

/** What the burst drives and reads: the end-to-end stage's target, and the processor's consumer. */
export type BurstTarget = EndToEndTarget & { watch: ProjectorWatch };

const POLL_MS = 250;
/** How often the consumer is asked whether the burst's messages were all acked: a cheap request to NATS. */
const ACK_POLL_MS = 100;

/** Spans of the given requests that are rows, without the row check's per-span counting: cheap enough to poll. */
async function burstRows(db: Pool, projectId: string, payload: Payload, requests: readonly number[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM spans WHERE project_id = $1 AND trace_id = ANY($2::uuid[])',
    [projectId, requests.flatMap((n) => payload.traceUuids(n))],
  );
  return rows[0].n;
}

/**
 * Issue 25's burst: the API loaded as fast as it answers for `durationS`, the processor sharing
 * the machine with it; every request answered 2xx is durable in JetStream, and what is left
 * unapplied when the load stops is the backlog the burst built. The figure is how long after
 * the load's end every acknowledged span can be read (counted in rows, as a reader sees them),
 * and when the last answered request's trace can.
 */
export async function measureBurst(
  target: BurstTarget,
  payload: Payload,
  connections: number,
  durationS: number,
  timeoutS: number,
): Promise<BurstFigures> {
  const accepted: number[] = [];
  const started = performance.now();
  const load = await runLoad({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    payload,
    connections,
    durationS,
    rssPid: target.apiPid,
    onAccepted: (n) => accepted.push(n),
  });
  const ended = performance.now();
  const acceptedSpans = accepted.length * payload.spansPerRequest;
  const last = accepted.slice(-1);
  const visibleAtEnd = await burstRows(target.db, target.projectId, payload, accepted);
  // Counting the burst's rows reads hundreds of thousands of index entries: polled all along, the
  // count took the CPU the drain needs. The consumer's ack floor says when to count (the
  // projection stage's way); the rows, counted then, say whether they can be read.
  const lastSeq = await target.watch.lastSeq();
  let visibleAfterS: number | null = null;
  let lastTraceAfterS: number | null = null;
  while (performance.now() - ended < timeoutS * 1_000) {
    const since = (performance.now() - ended) / 1_000;
    if (lastTraceAfterS === null && (await burstRows(target.db, target.projectId, payload, last)) === last.length * payload.spansPerRequest)
      lastTraceAfterS = since;
    const acked = (await target.watch.progress()).ackFloor >= lastSeq;
    if (acked && (await burstRows(target.db, target.projectId, payload, accepted)) >= acceptedSpans) {
      visibleAfterS = (performance.now() - ended) / 1_000;
      lastTraceAfterS ??= visibleAfterS;
      break;
    }
    await sleep(acked || lastTraceAfterS === null ? POLL_MS : ACK_POLL_MS);
  }
  const caughtUp = performance.now();
  const rows =
    visibleAfterS === null
      ? await settledRows(target.db, target.projectId, payload, accepted, target.drained)
      : await checkRows(target.db, target.projectId, payload, accepted);
  return {
    load,
    acceptedSpans,
    visibleAtEnd,
    visibleAfterS,
    lastTraceAfterS,
    appliedSpansPerS: rows.visible / ((caughtUp - started) / 1_000),
    rows,
  };
}
