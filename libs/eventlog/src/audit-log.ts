import { randomUUID } from 'node:crypto';
import type { JetStreamClient } from 'nats';
import { type AuditEvent, AUDIT_SCHEMA } from '@app/domain';
import { toNatsHeaders } from './headers';
import type { StreamLayout } from './streams';
import { publishWithRetry } from './publish-retry';

/** An audit event before it is stamped with its id and time. */
export type AuditRecord = Omit<AuditEvent, 'id' | 'at'>;

/** `audit.<orgId>`; a user's own events (logins) belong to no organization and go to `audit.global`. */
export const auditSubject = (layout: StreamLayout, orgId: string | null): string => `${layout.subjectRoot('audit')}.${orgId ?? 'global'}`;

/**
 * Appends one audit event to the AUDIT stream, for the API and the operator CLI alike. The
 * event id is the message id, so a retried publish is stored once.
 */
export async function appendAuditEvent(
  js: JetStreamClient,
  layout: StreamLayout,
  record: AuditRecord,
  now: Date = new Date(),
): Promise<AuditEvent> {
  const event: AuditEvent = { ...record, id: randomUUID(), at: now.toISOString() };
  await publishAuditEvent(js, layout, event);
  return event;
}

/** Publishes an audit event stamped by its writer: an outbox's relay gives a row the same id on every try. */
export async function publishAuditEvent(js: JetStreamClient, layout: StreamLayout, event: AuditEvent): Promise<void> {
  await publishWithRetry(js, auditSubject(layout, event.orgId), JSON.stringify(event), {
    msgID: event.id,
    headers: toNatsHeaders({ 'Spanlog-Schema': AUDIT_SCHEMA }),
  });
}
