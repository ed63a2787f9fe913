import { Injectable } from '@nestjs/common';
import {
  ADMIN_ROLES,
  type AuditAction,
  BUILT_IN_PRICES,
  type LangfuseModel,
  type ModelDefinition,
  type PriceDefinition,
  fromLangfuseModel,
  notFound,
  toLangfuseModel,
  validateModelDefinition,
} from '@app/domain';
import { type ApiKeyPrincipal, type CostRecomputation, ModelDefinitionStore } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';
import { type Actor, AccessService } from '../access/access.service';

/** What `model.list` answers: the project's own definitions (which override), the built-in table, and the last recomputation. */
export interface ModelList {
  project: ModelDefinition[];
  builtIn: PriceDefinition[];
  recomputation: CostRecomputation | null;
}

/** Who changed a definition: a member in a session, or an API key (Langfuse's models API). */
type By = { actorUserId: string; actorApiKeyId?: undefined; ip: string | null } | { actorUserId: null; actorApiKeyId: string; ip: null };

/**
 * A project's model price definitions (issue 28): members read, owners and admins change (an
 * API key of the project changes them too, through Langfuse's models API, as Langfuse's keys
 * do). Each change restarts the project's cost recomputation, in the store's transaction. Fields
 * are checked by `validateModelDefinition` before access is.
 */
@Injectable()
export class ModelsService {
  constructor(
    private readonly access: AccessService,
    private readonly store: ModelDefinitionStore,
    private readonly audit: AuditPublisher,
  ) {}

  async list(actor: Actor, projectId: string): Promise<ModelList> {
    await this.access.requireProjectRole(actor, projectId);
    return this.listOf(projectId);
  }

  async create(actor: Actor, projectId: string, fields: unknown): Promise<ModelDefinition> {
    const definition = validateModelDefinition(fields);
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    return this.created(orgId, projectId, definition, { actorUserId: actor.userId, ip: actor.ip });
  }

  async update(actor: Actor, projectId: string, id: string, fields: unknown): Promise<ModelDefinition> {
    const definition = validateModelDefinition(fields);
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const updated = await this.store.update(projectId, id, definition);
    if (!updated) throw notFound(`model definition ${id} not found in project ${projectId}`);
    await this.record(orgId, 'model.updated', updated, { actorUserId: actor.userId, ip: actor.ip });
    return updated;
  }

  async delete(actor: Actor, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    return this.deleted(orgId, projectId, id, { actorUserId: actor.userId, ip: actor.ip });
  }

  /** `GET /api/public/models`: the project's definitions, then the built-in ones, a page at a time. */
  async langfuseList(principal: ApiKeyPrincipal, page: number, limit: number) {
    const { project, builtIn } = await this.listOf(principal.projectId);
    const all = [...project, ...builtIn];
    return {
      data: all.slice((page - 1) * limit, page * limit).map(toLangfuseModel),
      meta: { page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
    };
  }

  async langfuseGet(principal: ApiKeyPrincipal, id: string): Promise<LangfuseModel> {
    const { project, builtIn } = await this.listOf(principal.projectId);
    const found = [...project, ...builtIn].find((d) => d.id === id);
    if (!found) throw notFound(`model ${id} not found`);
    return toLangfuseModel(found);
  }

  async langfuseCreate(principal: ApiKeyPrincipal, body: unknown): Promise<LangfuseModel> {
    const definition = validateModelDefinition(fromLangfuseModel(body));
    const by: By = { actorUserId: null, actorApiKeyId: principal.apiKeyId, ip: null };
    return toLangfuseModel(await this.created(principal.orgId, principal.projectId, definition, by));
  }

  async langfuseDelete(principal: ApiKeyPrincipal, id: string): Promise<{ message: string }> {
    if (BUILT_IN_PRICES.some((d) => d.id === id))
      throw notFound(`model ${id} is built in: define one of your own with its modelName to override it`);
    await this.deleted(principal.orgId, principal.projectId, id, { actorUserId: null, actorApiKeyId: principal.apiKeyId, ip: null });
    return { message: 'Model successfully deleted' };
  }

  private async listOf(projectId: string): Promise<ModelList> {
    const [project, recomputation] = await Promise.all([this.store.list(projectId), this.store.recomputation(projectId)]);
    return { project, builtIn: [...BUILT_IN_PRICES], recomputation };
  }

  private async created(orgId: string, projectId: string, fields: ReturnType<typeof validateModelDefinition>, by: By) {
    const definition = await this.store.create(projectId, fields);
    await this.record(orgId, 'model.created', definition, by);
    return definition;
  }

  private async deleted(orgId: string, projectId: string, id: string, by: By): Promise<{ id: string; deleted: true }> {
    const definition = await this.store.get(projectId, id);
    if (!definition || !(await this.store.delete(projectId, id)))
      throw notFound(`model definition ${id} not found in project ${projectId}`);
    await this.record(orgId, 'model.deleted', definition, by);
    return { id, deleted: true };
  }

  private record(orgId: string, action: Extract<AuditAction, `model.${string}`>, definition: ModelDefinition, by: By): Promise<void> {
    const details = { projectId: definition.projectId, modelName: definition.modelName, matchPattern: definition.matchPattern };
    return this.audit.record({
      orgId,
      actorUserId: by.actorUserId,
      actorApiKeyId: by.actorApiKeyId ?? null,
      action,
      target: definition.id,
      details,
      ip: by.ip,
    });
  }
}
