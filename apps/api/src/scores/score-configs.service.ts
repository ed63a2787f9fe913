import { Injectable } from '@nestjs/common';
import { ADMIN_ROLES, type AuditAction, type ScoreConfig, notFound, validateScoreConfigInput, validateScoreConfigPatch } from '@app/domain';
import { type ApiKeyPrincipal, ScoreConfigStore } from '@app/persistence';
import { type Actor, AccessService } from '../access/access.service';
import { AuditPublisher } from '../audit/audit.publisher';

type ScoreConfigAuditAction = Extract<AuditAction, `score_config.${string}`>;

/** Who changed a config: a signed-in user, or an API key (Langfuse's endpoint). */
type ChangedBy = { actorUserId: string; actorApiKeyId?: undefined } | { actorUserId: null; actorApiKeyId: string };

/**
 * Score configs per project (issue 30): members of the project's organization read, owners and
 * admins change (the dashboard), as does a project's API key (Langfuse's endpoint). The fields'
 * rules are `validateScoreConfigInput`'s, checked before access is.
 */
@Injectable()
export class ScoreConfigsService {
  constructor(
    private readonly access: AccessService,
    private readonly store: ScoreConfigStore,
    private readonly audit: AuditPublisher,
  ) {}

  async create(actor: Actor, projectId: string, fields: unknown): Promise<ScoreConfig> {
    const settings = validateScoreConfigInput(fields);
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    return this.created(orgId, { actorUserId: actor.userId }, actor.ip, projectId, await this.store.create(projectId, settings));
  }

  /** Langfuse's `POST /api/public/score-configs`, with the project's key. */
  async createWithKey(principal: ApiKeyPrincipal, ip: string | null, fields: unknown): Promise<ScoreConfig> {
    const settings = validateScoreConfigInput(fields);
    const config = await this.store.create(principal.projectId, settings);
    return this.created(principal.orgId, { actorUserId: null, actorApiKeyId: principal.apiKeyId }, ip, principal.projectId, config);
  }

  async list(actor: Actor, projectId: string): Promise<ScoreConfig[]> {
    await this.access.requireProjectRole(actor, projectId);
    return this.store.list(projectId);
  }

  async update(actor: Actor, projectId: string, id: string, fields: unknown): Promise<ScoreConfig> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const current = await this.found(projectId, id);
    const settings = validateScoreConfigPatch(current, fields);
    const updated = await this.store.update(projectId, id, settings);
    if (!updated) throw notFound(`score config ${id} not found in project ${projectId}`);
    const changed = Object.keys(fields as object);
    await this.record(orgId, { actorUserId: actor.userId }, actor.ip, 'score_config.updated', id, {
      projectId,
      name: updated.name,
      changed,
    });
    return updated;
  }

  /** Archived, a config checks no score and is offered to no one; restored, it checks them again. */
  async archive(actor: Actor, projectId: string, id: string, archived: boolean): Promise<ScoreConfig> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const config = await this.store.setArchived(projectId, id, archived);
    if (!config) throw notFound(`score config ${id} not found in project ${projectId}`);
    const action = archived ? 'score_config.archived' : 'score_config.restored';
    await this.record(orgId, { actorUserId: actor.userId }, actor.ip, action, id, { projectId, name: config.name });
    return config;
  }

  private async found(projectId: string, id: string): Promise<ScoreConfig> {
    const config = await this.store.get(projectId, id);
    if (!config) throw notFound(`score config ${id} not found in project ${projectId}`);
    return config;
  }

  private async created(orgId: string, by: ChangedBy, ip: string | null, projectId: string, config: ScoreConfig): Promise<ScoreConfig> {
    await this.record(orgId, by, ip, 'score_config.created', config.id, { projectId, name: config.name, dataType: config.dataType });
    return config;
  }

  private record(
    orgId: string,
    by: ChangedBy,
    ip: string | null,
    action: ScoreConfigAuditAction,
    target: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.record({ orgId, ...by, action, target, details, ip });
  }
}
