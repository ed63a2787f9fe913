import { randomUUID } from 'node:crypto';
import { DeliverPolicy } from 'nats';
import { INGEST_SCHEMAS, type TraceDeletionBatch } from '@app/domain';
import type { NatsResources } from './nats-resources';
import { appendAuditEvent } from './audit-log';
import { ChunkPublisher } from './publisher';

/** Who appended a deletion, in the envelope's key field: no API key, the retention job. */
const RETENTION_ACTOR = 'retention';

/**
 * Appends a retention deletion to INGEST (`ingest.<org>.<project>.deleted`), where every
 * projection, live or replaying, meets it after the data it deletes. Resolves once durable.
 */
export async function appendTraceDeletion(
  nats: NatsResources,
  publisher: ChunkPublisher,
  target: { orgId: string; projectId: string; receivedAt: string },
  batch: TraceDeletionBatch,
): Promise<number> {
  const subject = nats.layout.ingestSubject(target.orgId, target.projectId, 'deleted');
  const envelope = { schema: INGEST_SCHEMAS.deleted, ...target, apiKeyId: RETENTION_ACTOR, requestId: randomUUID() };
  const { lastSeq } = await publisher.publish(subject, envelope, [new TextEncoder().encode(JSON.stringify(batch))]);
  return lastSeq;
}

/**
 * Purges an organization's ingested requests received before `cutoff` from INGEST. A request
 * received then can only mention traces created then, all of them expired, so a later
 * replay finds nothing to bring back. Deletion messages are kept. Returns messages purged.
 */
export async function purgeIngestBefore(nats: NatsResources, orgId: string, cutoff: Date): Promise<number> {
  const { js, jsm, layout } = nats;
  const stream = layout.streamName('ingest');
  const orgSubjects = `${layout.subjectRoot('ingest')}.${orgId}`;
  const consumer = await js.consumers.get(stream, {
    filterSubjects: `${orgSubjects}.>`,
    deliver_policy: DeliverPolicy.StartTime,
    opt_start_time: cutoff.toISOString(),
  });
  const first = await consumer.next({ expires: 2_000 });
  await consumer.delete().catch(() => undefined);
  // Nothing of this organization since the cutoff: everything before the stream's end goes.
  const before = first ? first.seq : (await jsm.streams.info(stream)).state.last_seq + 1;
  let purged = 0;
  for (const kind of ['batch', 'otel'] as const) {
    purged += (await jsm.streams.purge(stream, { filter: `${orgSubjects}.*.${kind}`, seq: before })).purged;
  }
  return purged;
}

/** The event-log side of a retention run (the `RetentionLog` of libs/persistence), over one connection. */
export function retentionEventLog(nats: NatsResources) {
  const publisher = new ChunkPublisher(nats.js, nats.layout.blobBucket, nats.maxMessageBytes);
  return {
    appendDeletion: (target: { orgId: string; projectId: string; receivedAt: string }, batch: TraceDeletionBatch) => appendTraceDeletion(nats, publisher, target, batch),
    purgeBefore: (orgId: string, cutoff: Date) => purgeIngestBefore(nats, orgId, cutoff),
  };
}

/** Audits what a run deleted, one event per organization it cleaned (SPEC 8.5: each run is audited with counts); an organization with nothing expired gets none. */
export async function auditRetention(nats: NatsResources, organizations: { orgId: string; plan: string; cutoff: string; traces: number; spans: number; scores: number; purgedMessages: number }[]): Promise<void> {
  for (const { orgId, ...counts } of organizations) {
    if (counts.traces === 0 && counts.purgedMessages === 0) continue;
    await appendAuditEvent(nats.js, nats.layout, { orgId, actorUserId: null, action: 'retention.run', target: orgId, details: counts, ip: null });
  }
}
