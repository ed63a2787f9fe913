import { setTimeout as sleep } from 'node:timers/promises';
import { INGEST_SCHEMAS } from '@app/domain';
import { ChunkPublisher, NatsResources } from '@app/eventlog';
import type { ProjectorWatch } from '../backlog';
import { type Payload, takeRequestNumber } from '../payloads';

export interface ProjectionFigures {
  spans: number;
  messages: number;
  /** From the first message handed to the processor to the last one applied. */
  seconds: number;
  spansPerS: number;
  /** Including the processor's start: what a restart after an outage costs. */
  secondsWithStart: number;
}

export interface ProjectionTarget {
  natsUrl: string;
  prefix: string;
  tenant: { orgId: string; projectId: string; apiKeyId: string };
  watch: ProjectorWatch;
  stopProcessor(): Promise<unknown>;
  startProcessor(): Promise<void>;
}

const PUBLISH_IN_FLIGHT = 64;

/**
 * Drain time of a backlog: the processor is stopped, `spans` worth of exports are appended
 * exactly as the API appends them (ChunkPublisher, production envelope), and the processor
 * is started again; the clock runs while its durable consumer's ack floor climbs.
 */
export async function measureProjection(target: ProjectionTarget, payload: Payload, spans: number, timeoutS: number): Promise<ProjectionFigures> {
  const messages = Math.ceil(spans / payload.items);
  await target.stopProcessor();
  const nats = await NatsResources.open(target.natsUrl, 'spanlog-bench', target.prefix);
  try {
    const publisher = new ChunkPublisher(nats.js, nats.layout.blobBucket, nats.maxMessageBytes, 30_000);
    const subject = nats.layout.ingestSubject(target.tenant.orgId, target.tenant.projectId, 'otel');
    const pending = new Set<Promise<unknown>>();
    for (let i = 0; i < messages; i++) {
      const n = takeRequestNumber();
      const envelope = { schema: INGEST_SCHEMAS.otlp, ...target.tenant, receivedAt: new Date().toISOString(), requestId: `bench-${n}` };
      const done: Promise<unknown> = publisher.publish(subject, envelope, [Buffer.from(payload.render(n))]).finally(() => pending.delete(done));
      pending.add(done);
      if (pending.size >= PUBLISH_IN_FLIGHT) await Promise.race(pending);
    }
    await Promise.all(pending);
  } finally {
    await nats.close();
  }
  const from = (await target.watch.progress()).ackFloor;
  const last = await target.watch.lastSeq();
  const spawned = performance.now();
  await target.startProcessor();
  let firstDelivery: number | null = null;
  const deadline = spawned + timeoutS * 1_000;
  for (;;) {
    const progress = await target.watch.progress();
    if (firstDelivery === null && progress.delivered > from) firstDelivery = performance.now();
    if (progress.ackFloor >= last) break;
    if (performance.now() > deadline) throw new Error(`the processor did not drain ${messages} messages within ${timeoutS} s (ack floor ${progress.ackFloor} of ${last})`);
    await sleep(25);
  }
  const finished = performance.now();
  const seconds = (finished - (firstDelivery ?? spawned)) / 1_000;
  return { spans: messages * payload.items, messages, seconds, spansPerS: (messages * payload.items) / seconds, secondsWithStart: (finished - spawned) / 1_000 };
}
