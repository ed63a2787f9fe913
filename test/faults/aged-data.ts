import { parseNatsServers } from '@app/config';
import { INGEST_SCHEMAS } from '@app/domain';
import { ChunkPublisher, NatsResources } from '@app/eventlog';
import type { Tenant } from '../support/api';

/**
 * Data that was received long ago: native batches appended to INGEST as the API appends
 * them (ChunkPublisher, the production envelope), with a `receivedAt` in the past. A trace's
 * `createdAt` is the `receivedAt` of its first envelope, so the processor's own retention
 * run, which measures from the real clock, finds these traces expired.
 */

const TRACES_PER_MESSAGE = 250;
const IN_FLIGHT = 16;

export interface AgedData {
  /** The spans' keys (native external ids), a message at a time. */
  keys: string[][];
  spans: number;
}

export async function appendAged(
  natsUrl: string,
  streamPrefix: string,
  tenant: Tenant,
  prefix: string,
  traces: number,
  receivedAt: Date,
): Promise<AgedData> {
  const nats = await NatsResources.open(
    { natsServers: parseNatsServers(natsUrl).servers, streamPrefix, streamReplicas: 1 },
    'spanlog-faults',
  );
  const keys: string[][] = [];
  try {
    const publisher = new ChunkPublisher(nats.js, nats.layout, nats.maxMessageBytes, { attemptTimeoutMs: 30_000, windowMs: 30_000 });
    const subject = nats.layout.ingestSubject(tenant.orgId, tenant.projectId, 'batch');
    const at = receivedAt.toISOString();
    const pending = new Set<Promise<unknown>>();
    for (let first = 0; first < traces; first += TRACES_PER_MESSAGE) {
      const batch: unknown[] = [];
      const spans: string[] = [];
      for (let t = first; t < Math.min(traces, first + TRACES_PER_MESSAGE); t++) {
        const traceId = `${prefix}-aged-${t}`;
        const spanId = `${traceId}-s`;
        spans.push(spanId);
        batch.push(
          { id: `${traceId}-e`, type: 'trace-create', timestamp: at, body: { id: traceId, name: `aged ${t}` } },
          { id: `${spanId}-e`, type: 'span-create', timestamp: at, body: { id: spanId, traceId, name: 'aged step', startTime: at } },
        );
      }
      keys.push(spans);
      const envelope = {
        schema: INGEST_SCHEMAS.nativeBatch,
        orgId: tenant.orgId,
        projectId: tenant.projectId,
        apiKeyId: tenant.apiKeyId,
        receivedAt: at,
        requestId: `${prefix}-aged-${first}`,
      };
      const done: Promise<unknown> = publisher
        .publish(subject, envelope, [Buffer.from(JSON.stringify({ batch }))])
        .finally(() => pending.delete(done));
      pending.add(done);
      if (pending.size >= IN_FLIGHT) await Promise.race(pending);
    }
    await Promise.all(pending);
  } finally {
    await nats.close();
  }
  return { keys, spans: traces };
}
