import { randomUUID } from 'node:crypto';
import { INGEST_SCHEMAS, type TraceDeletionBatch } from '@app/domain';
import type { NatsResources } from './nats-resources';
import { appendAuditEvent } from './audit-log';
import { ChunkPublisher } from './publisher';
import { firstSeqStoredSince, replayStream, streamLastSeq } from './replay';
import { removeStoredMessage } from './stored-message';

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

/** Deletions awaited together: one at a time a million expired requests would take hours. */
const DELETIONS_IN_FLIGHT = 512;
/** Sequences read per pass of the organization's expired requests (headers only). */
const EXPIRED_SCAN_BATCH = 1_000;

/**
 * Removes an organization's ingested requests received before `cutoff` from INGEST, one
 * message at a time by sequence. A request received then can only mention traces created
 * then, all of them expired, so a later replay finds nothing to bring back. Deletion
 * messages are kept. The bytes are erased (SPEC 8.5: irreversible). Returns messages removed.
 *
 * Never a purge: on nats-server 2.9 a purge with a subject filter moves the position of every
 * consumer of the stream, whatever its filter, so pending messages of every tenant would be
 * skipped as if applied (STACK_NOTES). Deleting single messages leaves every consumer where it is.
 */
export async function deleteIngestBefore(nats: NatsResources, orgId: string, cutoff: Date): Promise<number> {
  const orgSubjects = `${nats.layout.subjectRoot('ingest')}.${orgId}`;
  const end = (await firstSeqStoredSince(nats, 'ingest', cutoff, `${orgSubjects}.>`)) ?? (await streamLastSeq(nats, 'ingest')) + 1;
  let removed = 0;
  let failure: unknown = null;
  const inFlight = new Set<Promise<void>>();
  await replayStream(
    nats,
    'ingest',
    { fromSeq: 1, toSeq: end - 1, batchSize: EXPIRED_SCAN_BATCH, filterSubject: `${orgSubjects}.>`, headersOnly: true },
    async (msgs) => {
      for (const msg of msgs) {
        if (msg.seq >= end || msg.subject.endsWith('.deleted')) continue;
        const deletion: Promise<void> = removeStoredMessage(nats, 'ingest', msg.seq)
          .then(
            (gone) => void (gone && removed++),
            (err: unknown) => void (failure ??= err),
          )
          .finally(() => inFlight.delete(deletion));
        inFlight.add(deletion);
        if (inFlight.size >= DELETIONS_IN_FLIGHT) await Promise.race(inFlight);
        if (failure) throw failure;
      }
    },
  );
  await Promise.all(inFlight);
  if (failure) throw failure;
  return removed;
}

/** The event-log side of a retention run (the `RetentionLog` of libs/persistence), over one connection. */
export function retentionEventLog(nats: NatsResources) {
  const publisher = new ChunkPublisher(nats.js, nats.layout, nats.maxMessageBytes);
  return {
    appendDeletion: (target: { orgId: string; projectId: string; receivedAt: string }, batch: TraceDeletionBatch) =>
      appendTraceDeletion(nats, publisher, target, batch),
    removeBefore: (orgId: string, cutoff: Date) => deleteIngestBefore(nats, orgId, cutoff),
  };
}

/** Audits what a run deleted, one event per organization it cleaned (SPEC 8.5: each run is audited with counts); an organization with nothing expired gets none. */
export async function auditRetention(
  nats: NatsResources,
  organizations: { orgId: string; plan: string; cutoff: string; traces: number; spans: number; scores: number; removedMessages: number }[],
): Promise<void> {
  for (const { orgId, ...counts } of organizations) {
    if (counts.traces === 0 && counts.removedMessages === 0) continue;
    await appendAuditEvent(nats.js, nats.layout, {
      orgId,
      actorUserId: null,
      action: 'retention.run',
      target: orgId,
      details: counts,
      ip: null,
    });
  }
}
