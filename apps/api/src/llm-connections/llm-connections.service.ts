import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { ADMIN_ROLES, type AuditAction, type LlmConnection, notFound, validateLlmConnectionInput } from '@app/domain';
import { LlmConnectionStore } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';
import { type Actor, AccessService } from '../access/access.service';

type ConnectionAuditAction = Extract<AuditAction, `llm_connection.${string}`>;

/**
 * LLM connections per project (issue 29), with the access rules of evaluators: members read,
 * owners and admins change. No answer holds the API key or a header value (`LlmConnection`
 * has neither), and neither does the audit. The base URL is checked by the webhook URL's
 * rules, private networks included.
 */
@Injectable()
export class LlmConnectionsService {
  private readonly rules: { requireHttps: boolean; refuseNonPublicHosts: boolean };

  constructor(
    private readonly access: AccessService,
    private readonly store: LlmConnectionStore,
    private readonly audit: AuditPublisher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.rules = { requireHttps: config.nodeEnv === 'production', refuseNonPublicHosts: !config.evaluatorAllowPrivateNetworks };
  }

  async create(actor: Actor, projectId: string, fields: unknown): Promise<LlmConnection> {
    const settings = validateLlmConnectionInput(fields, { partial: false, ...this.rules });
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const connection = await this.store.create(projectId, settings);
    await this.record(actor, orgId, 'llm_connection.created', connection.id, { projectId, name: connection.name });
    return connection;
  }

  async list(actor: Actor, projectId: string): Promise<LlmConnection[]> {
    await this.access.requireProjectRole(actor, projectId);
    return this.store.list(projectId);
  }

  async update(actor: Actor, projectId: string, id: string, fields: unknown): Promise<LlmConnection> {
    const patch = validateLlmConnectionInput(fields, { partial: true, ...this.rules });
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const connection = await this.store.update(projectId, id, patch);
    if (!connection) throw notFound(`LLM connection ${id} not found in project ${projectId}`);
    await this.record(actor, orgId, 'llm_connection.updated', id, { projectId, name: connection.name, changed: Object.keys(patch) });
    return connection;
  }

  async delete(actor: Actor, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    if (!(await this.store.delete(projectId, id))) throw notFound(`LLM connection ${id} not found in project ${projectId}`);
    await this.record(actor, orgId, 'llm_connection.deleted', id, { projectId });
    return { id, deleted: true };
  }

  /** Whether the project has the connection (a judge evaluator names one). */
  async exists(projectId: string, id: string): Promise<boolean> {
    return (await this.store.get(projectId, id)) !== null;
  }

  private record(
    actor: Actor,
    orgId: string,
    action: ConnectionAuditAction,
    target: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.record({ orgId, actorUserId: actor.userId, action, target, details, ip: actor.ip });
  }
}
