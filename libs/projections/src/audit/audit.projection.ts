import type { EntityManager } from 'typeorm';
import { AUDIT_SCHEMA, type AuditEvent, parseAuditEvent, sanitizeJson } from '@app/domain';
import { CONSUMERS, jsonMessage } from '@app/eventlog';
import type { StreamProjection } from '../projection';

/** AUDIT into `audit_log`: one row per event, keyed by its id, so a redelivery is a no-op. */
export const auditProjection: StreamProjection<AuditEvent> = {
  name: 'audit',
  version: 1,
  tables: ['audit_log'],
  source: { stream: 'audit', consumer: CONSUMERS.auditProjector },
  schemas: [AUDIT_SCHEMA],
  decode: jsonMessage((value) => sanitizeJson(parseAuditEvent(value))),
  prepare: async (events) => events,
  apply: insertAuditEvents,
};

async function insertAuditEvents(tx: EntityManager, events: AuditEvent[]): Promise<void> {
  await tx.query(
    `INSERT INTO audit_log (id, org_id, actor_user_id, actor_api_key_id, action, target, details, ip, created_at)
     SELECT id, org_id, actor_user_id, actor_api_key_id, action, target, details, ip, created_at
       FROM jsonb_to_recordset($1::jsonb) AS r (id uuid, org_id uuid, actor_user_id uuid, actor_api_key_id uuid, action text, target text, details jsonb, ip text, created_at timestamptz)
     ON CONFLICT (id) DO NOTHING`,
    [
      JSON.stringify(
        events.map((e) => ({
          id: e.id,
          org_id: e.orgId,
          actor_user_id: e.actorUserId,
          actor_api_key_id: e.actorApiKeyId ?? null,
          action: e.action,
          target: e.target,
          details: e.details,
          ip: e.ip,
          created_at: e.at,
        })),
      ),
    ],
  );
}
