import { setTimeout as sleep } from 'node:timers/promises';
import { parseNatsServers } from '@app/config';
import { INGEST_SCHEMAS } from '@app/domain';
import { ChunkPublisher, NatsResources } from '@app/eventlog';
import type { Pool } from 'pg';
import type { Stack } from '../../test/support/stack';
import type { ProjectorWatch } from '../../test/support/projector-watch';
import { type Payload, takeRequestNumber } from '../payloads';
import { type RowCheck, checkRows, projectSpanRows } from '../rows';

export interface ProjectionFigures {
  spans: number;
  messages: number;
  /** From the first message handed to the processor to the last of its spans visible as a row. */
  seconds: number;
  /** Rows visible per second. */
  spansPerS: number;
  /** Including the processor's start: what a restart after an outage costs. */
  secondsWithStart: number;
  /** Every published span a row, once: anything else fails the stage. */
  rows: RowCheck;
}

export interface ProjectionTarget {
  natsUrl: string;
  prefix: string;
  tenant: { orgId: string; projectId: string; apiKeyId: string };
  watch: ProjectorWatch;
  db: Pool;
  stopProcessor(): Promise<unknown>;
  startProcessor(): Promise<void>;
}

/** The target on a running stack: its database and streams, and its processor, started again with `processorEnv`. */
export const projectionTargetOn = (
  stack: Stack,
  natsUrl: string,
  tenant: ProjectionTarget['tenant'],
  watch: ProjectorWatch,
  processorEnv: NodeJS.ProcessEnv = {},
): ProjectionTarget => ({
  natsUrl,
  prefix: stack.streamPrefix,
  tenant,
  watch,
  db: stack.db,
  stopProcessor: () => stack.killProcessor(),
  startProcessor: () => stack.startProcessor(processorEnv),
});

const PUBLISH_IN_FLIGHT = 64;
const POLL_MS = 25;
/** Once the consumer has acked everything, how long rows may still be awaited before the missing ones count as lost. */
const ROWS_GRACE_MS = 10_000;

/**
 * Drain time of a backlog: the processor is stopped, `spans` worth of exports are appended
 * exactly as the API appends them (ChunkPublisher, production envelope), and the processor
 * is started again; the clock runs until every span is a row. The consumer's ack floor only
 * says when to start counting rows: a message it skipped counts as acked and is never applied.
 */
export async function measureProjection(
  target: ProjectionTarget,
  payload: Payload,
  spans: number,
  timeoutS: number,
): Promise<ProjectionFigures> {
  const messages = Math.ceil(spans / payload.items);
  await target.stopProcessor();
  const requests = await appendExports(target, payload, messages);
  const expected = messages * payload.spansPerRequest;
  const rowsBefore = await projectSpanRows(target.db, target.tenant.projectId);
  const from = (await target.watch.progress()).ackFloor;
  const last = await target.watch.lastSeq();
  const spawned = performance.now();
  await target.startProcessor();
  let firstDelivery: number | null = null;
  let lastRows = { at: spawned, n: 0 };
  let ackedAt: number | null = null;
  const deadline = spawned + timeoutS * 1_000;
  for (;;) {
    const progress = await target.watch.progress();
    if (firstDelivery === null && progress.delivered > from) firstDelivery = performance.now();
    if (progress.ackFloor >= last) {
      ackedAt ??= performance.now();
      const n = (await projectSpanRows(target.db, target.tenant.projectId)) - rowsBefore;
      if (n !== lastRows.n) lastRows = { at: performance.now(), n };
      if (n >= expected || performance.now() - ackedAt > ROWS_GRACE_MS) break;
    }
    if (performance.now() > deadline)
      throw new Error(`the processor did not drain ${messages} messages within ${timeoutS} s (ack floor ${progress.ackFloor} of ${last})`);
    await sleep(ackedAt === null ? POLL_MS : 250);
  }
  const rows = await checkRows(target.db, target.tenant.projectId, payload, requests);
  const seconds = (lastRows.at - (firstDelivery ?? spawned)) / 1_000;
  return { spans: expected, messages, seconds, spansPerS: rows.visible / seconds, secondsWithStart: (lastRows.at - spawned) / 1_000, rows };
}

/**
 * Appends `messages` exports of `payload` to INGEST exactly as the API appends them
 * (ChunkPublisher, production envelope), each under new ids; returns their request numbers.
 */
export async function appendExports(
  target: Pick<ProjectionTarget, 'natsUrl' | 'prefix' | 'tenant'>,
  payload: Payload,
  messages: number,
): Promise<number[]> {
  const requests: number[] = [];
  const nats = await NatsResources.open(
    { natsServers: parseNatsServers(target.natsUrl).servers, streamPrefix: target.prefix, streamReplicas: 1 },
    'spanlog-bench',
  );
  try {
    const publisher = new ChunkPublisher(nats.js, nats.layout, nats.maxMessageBytes, { attemptTimeoutMs: 30_000, windowMs: 30_000 });
    const subject = nats.layout.ingestSubject(target.tenant.orgId, target.tenant.projectId, 'otel');
    const pending = new Set<Promise<unknown>>();
    for (let i = 0; i < messages; i++) {
      const n = takeRequestNumber();
      requests.push(n);
      const envelope = { schema: INGEST_SCHEMAS.otlp, ...target.tenant, receivedAt: new Date().toISOString(), requestId: `bench-${n}` };
      const done: Promise<unknown> = publisher
        .publish(subject, envelope, [Buffer.from(payload.render(n))])
        .finally(() => pending.delete(done));
      pending.add(done);
      if (pending.size >= PUBLISH_IN_FLIGHT) await Promise.race(pending);
    }
    await Promise.all(pending);
  } finally {
    await nats.close();
  }
  return requests;
}
