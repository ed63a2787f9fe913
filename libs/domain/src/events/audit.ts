import { isJsonObject } from '../json/types';
import { Optional, Required, anyText, dateText, jsonObject, oneOf } from '../validation';
import { readMessage } from './read-message';

/** The AUDIT stream's one message schema: who did what, to what, when. */
export const AUDIT_SCHEMA = 'audit.event/v1';

export const AUDIT_ACTIONS = [
  'user.login',
  'user.login_failed',
  'user.logout',
  'session.refresh_reuse',
  'api_key.created',
  'api_key.revoked',
  'member.added',
  'member.removed',
  'organization.created',
  'organization.plan_changed',
  'project.created',
  'retention.run',
  'evaluator.created',
  'evaluator.updated',
  'evaluator.secret_rotated',
  'evaluator.deleted',
  'llm_connection.created',
  'llm_connection.updated',
  'llm_connection.deleted',
  'prompt_template.created',
  'prompt_template.version_pushed',
  'prompt_template.label_moved',
  'monitor.created',
  'monitor.updated',
  'monitor.deleted',
  'monitor.state_changed',
  'dataset.saved',
  'dataset.items_pushed',
  'dataset.item_archived',
  'dataset.item_restored',
  'model.created',
  'model.updated',
  'model.deleted',
  'score_config.created',
  'score_config.updated',
  'score_config.archived',
  'score_config.restored',
  'score.created',
  'score.updated',
  'score.deleted',
  'annotation_queue.created',
  'annotation_queue.updated',
  'annotation_queue.archived',
  'annotation_queue.restored',
  'annotation_queue.items_added',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEvent {
  id: string;
  /** Null for events of a user rather than an organization (logins). */
  orgId: string | null;
  actorUserId: string | null;
  /** The API key behind a change made with one (prompt templates); absent in events written before keys could act. */
  actorApiKeyId?: string | null;
  action: AuditAction;
  target: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  at: string;
}

/** Null and absent alike read as null: `toDto` drops nulls. */
class AuditEventFields {
  @Required(anyText) id: string;
  @Optional(anyText) orgId?: string;
  @Optional(anyText) actorUserId?: string;
  @Optional(anyText) actorApiKeyId?: string;
  @Required(oneOf(AUDIT_ACTIONS)) action: AuditAction;
  @Optional(anyText) target?: string;
  @Required(jsonObject) details: Record<string, unknown>;
  @Optional(anyText) ip?: string;
  @Required(dateText) at: string;
}

export function parseAuditEvent(value: unknown): AuditEvent {
  const e = readMessage(AuditEventFields, value, `not an ${AUDIT_SCHEMA} message`);
  // An event written before keys could act has no actorApiKeyId, and keeps none.
  const actorApiKeyId = isJsonObject(value) && value.actorApiKeyId !== undefined ? { actorApiKeyId: e.actorApiKeyId ?? null } : {};
  return { ...e, orgId: e.orgId ?? null, actorUserId: e.actorUserId ?? null, ...actorApiKeyId, target: e.target ?? null, ip: e.ip ?? null };
}
