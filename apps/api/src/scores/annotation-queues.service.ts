import { Injectable } from '@nestjs/common';
import {
  ADMIN_ROLES,
  ANNOTATION_QUEUE_LIMITS as LIMITS,
  type AnnotationQueue,
  type AuditAction,
  type QueueProgress,
  type QueueTarget,
  type ScoreConfig,
  decodeCursor,
  isBigintId,
  keysetPage,
  notFound,
  validationError,
} from '@app/domain';
import { AnnotationQueueStore, ScoreConfigStore, type StoredQueueItem, TenancyRepository } from '@app/persistence';
import { type Actor, AccessService, forbidden } from '../access/access.service';
import { AuditPublisher } from '../audit/audit.publisher';
import type {
  AnnotationQueueAddFromFilterInput,
  AnnotationQueueAddItemsInput,
  AnnotationQueueCreateInput,
  AnnotationQueueItemsInput,
  AnnotationQueueNextInput,
  AnnotationQueueUpdateInput,
} from '../rpc/rpc.dto';
import { TracesService } from '../traces/traces.service';

type QueueAuditAction = Extract<AuditAction, `annotation_queue.${string}`>;

/** What adding items answers: how many were new, and how many the request named (already queued ones are kept as they are). */
export interface ItemsAdded {
  added: number;
  requested: number;
}

/** The same 404 for an item of another project or queue as for no item: nothing leaks. */
const itemNotFound = (id: string) => notFound(`itemId: item ${id} not found in this queue`);
const queueNotFound = (id: string, projectId: string) => notFound(`queueId: annotation queue ${id} not found in project ${projectId}`);
const lockedByOther = (item: StoredQueueItem) =>
  forbidden(`itemId: another reviewer holds item ${item.id} until ${item.lockedUntil}; take the next one`);

/**
 * Annotation queues (issue 30): owners and admins set queues up, any member of the project's
 * organization adds traces or spans and reviews. The scores a reviewer gives are ordinary hand
 * scores (`handScore.create`); a queue only says what to review and who has done what.
 */
@Injectable()
export class AnnotationQueuesService {
  constructor(
    private readonly access: AccessService,
    private readonly store: AnnotationQueueStore,
    private readonly configs: ScoreConfigStore,
    private readonly traces: TracesService,
    private readonly users: TenancyRepository,
    private readonly audit: AuditPublisher,
  ) {}

  async create(actor: Actor, { projectId, name, description, scoreConfigIds = [] }: AnnotationQueueCreateInput): Promise<AnnotationQueue> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    await this.configsInForce(projectId, scoreConfigIds);
    const queue = await this.store.create(projectId, { name, description: description || null, scoreConfigIds });
    await this.record(actor, orgId, 'annotation_queue.created', queue.id, { projectId, name, scoreConfigIds });
    return queue;
  }

  async list(actor: Actor, projectId: string) {
    await this.access.requireProjectRole(actor, projectId);
    return this.store.list(projectId);
  }

  /** The queue, its score configs in its order (archived ones left out: they score nothing), and its progress. */
  async get(
    actor: Actor,
    projectId: string,
    queueId: string,
  ): Promise<AnnotationQueue & { configs: ScoreConfig[]; progress: QueueProgress }> {
    await this.access.requireProjectRole(actor, projectId);
    const queue = await this.queue(projectId, queueId);
    const all = new Map((await this.configs.list(projectId)).map((c) => [c.id, c]));
    const configs = queue.scoreConfigIds.flatMap((id) => {
      const config = all.get(id);
      return config && !config.archived ? [config] : [];
    });
    return { ...queue, configs, progress: await this.store.progress(queue.id) };
  }

  async update(actor: Actor, { projectId, queueId, ...fields }: AnnotationQueueUpdateInput): Promise<AnnotationQueue> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const current = await this.queue(projectId, queueId);
    if (fields.scoreConfigIds) await this.configsInForce(projectId, fields.scoreConfigIds);
    const updated = await this.store.update(projectId, queueId, {
      name: fields.name ?? current.name,
      description: fields.description === undefined ? current.description : fields.description || null,
      scoreConfigIds: fields.scoreConfigIds ?? current.scoreConfigIds,
    });
    if (!updated) throw queueNotFound(queueId, projectId);
    await this.record(actor, orgId, 'annotation_queue.updated', queueId, { projectId, name: updated.name, changed: Object.keys(fields) });
    return updated;
  }

  async archive(actor: Actor, projectId: string, queueId: string, archived: boolean): Promise<AnnotationQueue> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const queue = await this.store.setArchived(projectId, queueId, archived);
    if (!queue) throw queueNotFound(queueId, projectId);
    const action = archived ? 'annotation_queue.archived' : 'annotation_queue.restored';
    await this.record(actor, orgId, action, queueId, { projectId, name: queue.name });
    return queue;
  }

  /** Traces or spans named one by one; each must be the project's (a 404 names the first that is not). */
  async addItems(actor: Actor, { projectId, queueId, items }: AnnotationQueueAddItemsInput): Promise<ItemsAdded> {
    const orgId = await this.access.requireProjectRole(actor, projectId);
    await this.openQueue(projectId, queueId);
    const missing = await this.store.firstMissing(projectId, items);
    if (missing) {
      const target = items[missing.index] as QueueTarget;
      throw notFound(
        missing.field === 'traceId'
          ? `items[${missing.index}].traceId: trace ${target.traceId} not found in project ${projectId}`
          : `items[${missing.index}].spanId: span ${target.spanId} is not a span of trace ${target.traceId}`,
      );
    }
    return this.added(actor, orgId, projectId, queueId, items, 'selection');
  }

  /** The newest traces the trace list's filters match, at most ANNOTATION_QUEUE_LIMITS.itemsPerRequest. */
  async addFromFilter(actor: Actor, { projectId, queueId, filter }: AnnotationQueueAddFromFilterInput): Promise<ItemsAdded> {
    const orgId = await this.access.requireProjectRole(actor, projectId);
    await this.openQueue(projectId, queueId);
    const ids = await this.traces.matchingIds(projectId, filter, LIMITS.itemsPerRequest);
    if (!ids.length) return { added: 0, requested: 0 };
    return this.added(
      actor,
      orgId,
      projectId,
      queueId,
      ids.map((traceId) => ({ traceId })),
      'filter',
    );
  }

  /** A page of the queue's items in queue order. */
  async items(actor: Actor, { projectId, queueId, status, cursor }: AnnotationQueueItemsInput) {
    await this.access.requireProjectRole(actor, projectId);
    await this.queue(projectId, queueId);
    const after = cursor === undefined ? null : decodeCursor<[string]>(cursor, [isBigintId])[0];
    const rows = await this.store.items(queueId, status, after, LIMITS.itemsPage);
    const { data, nextCursor } = keysetPage(rows, LIMITS.itemsPage, (row) => [row.position]);
    return { data, meta: { nextCursor } };
  }

  /**
   * The next item, locked to the caller for ANNOTATION_QUEUE_LIMITS.lockMs, or null when every
   * pending item is done or held by another reviewer (`progress` tells which).
   */
  async next(actor: Actor, { projectId, queueId, afterItemId, previous = false }: AnnotationQueueNextInput) {
    await this.access.requireProjectRole(actor, projectId);
    const queue = await this.queue(projectId, queueId);
    if (queue.archived) throw validationError(`queueId: the annotation queue "${queue.name}" is archived; restore it to review it`);
    let after: { id: string; position: string } | null = null;
    if (afterItemId !== undefined) {
      const item = await this.store.item(projectId, afterItemId);
      if (!item || item.queueId !== queueId) throw notFound(`afterItemId: item ${afterItemId} not found in this queue`);
      after = { id: item.id, position: item.position };
    }
    return { item: await this.store.take(queueId, { userId: actor.userId, after, previous }) };
  }

  complete(actor: Actor, projectId: string, itemId: string) {
    return this.finish(actor, projectId, itemId, 'completed');
  }

  skip(actor: Actor, projectId: string, itemId: string) {
    return this.finish(actor, projectId, itemId, 'skipped');
  }

  async progress(actor: Actor, projectId: string, queueId: string): Promise<QueueProgress> {
    await this.access.requireProjectRole(actor, projectId);
    return this.store.progress((await this.queue(projectId, queueId)).id);
  }

  private async finish(actor: Actor, projectId: string, itemId: string, status: 'completed' | 'skipped'): Promise<StoredQueueItem> {
    await this.access.requireProjectRole(actor, projectId);
    const reviewer = await this.users.user(actor.userId);
    if (!reviewer) throw forbidden('your user no longer exists');
    const done = await this.store.finish(projectId, itemId, status, { userId: reviewer.id, email: reviewer.email });
    if (done) return done;
    const item = await this.store.item(projectId, itemId);
    throw item ? lockedByOther(item) : itemNotFound(itemId);
  }

  private async added(
    actor: Actor,
    orgId: string,
    projectId: string,
    queueId: string,
    targets: QueueTarget[],
    from: 'selection' | 'filter',
  ): Promise<ItemsAdded> {
    const added = await this.store.addItems(projectId, queueId, targets);
    await this.record(actor, orgId, 'annotation_queue.items_added', queueId, { projectId, from, requested: targets.length, added });
    return { added, requested: targets.length };
  }

  private async queue(projectId: string, queueId: string): Promise<AnnotationQueue> {
    const queue = await this.store.get(projectId, queueId);
    if (!queue) throw queueNotFound(queueId, projectId);
    return queue;
  }

  private async openQueue(projectId: string, queueId: string): Promise<AnnotationQueue> {
    const queue = await this.queue(projectId, queueId);
    if (queue.archived) throw validationError(`queueId: the annotation queue "${queue.name}" is archived; restore it to add items`);
    return queue;
  }

  /** Every id a score config of the project in force; the first that is not is named by its index. */
  private async configsInForce(projectId: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    const all = new Map((await this.configs.list(projectId)).map((c) => [c.id, c]));
    ids.forEach((id, i) => {
      const config = all.get(id);
      if (!config) throw notFound(`scoreConfigIds[${i}]: score config ${id} not found in project ${projectId}`);
      if (config.archived) throw validationError(`scoreConfigIds[${i}]: the score config "${config.name}" is archived`);
    });
  }

  private record(actor: Actor, orgId: string, action: QueueAuditAction, target: string, details: Record<string, unknown>): Promise<void> {
    return this.audit.record({ orgId, actorUserId: actor.userId, action, target, details, ip: actor.ip });
  }
}
