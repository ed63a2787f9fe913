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
  'prompt_template.created',
  'prompt_template.version_pushed',
  'prompt_template.label_moved',
  'monitor.created',
  'monitor.updated',
  'monitor.deleted',
  'monitor.state_changed',
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

export function parseAuditEvent(value: unknown): AuditEvent {
  const e = value as Partial<AuditEvent>;
  const str = (v: unknown) => typeof v === 'string';
  const strOrNull = (v: unknown) => v === null || typeof v === 'string';
  if (
    !e || typeof e !== 'object' || !str(e.id) || !strOrNull(e.orgId) || !strOrNull(e.actorUserId) ||
    !(e.actorApiKeyId === undefined || strOrNull(e.actorApiKeyId)) ||
    !(AUDIT_ACTIONS as readonly unknown[]).includes(e.action) || !strOrNull(e.target) || !strOrNull(e.ip) ||
    !str(e.at) || Number.isNaN(Date.parse(e.at as string)) || typeof e.details !== 'object' || e.details === null
  ) {
    throw new Error('not an audit.event/v1 message');
  }
  return e as AuditEvent;
}
