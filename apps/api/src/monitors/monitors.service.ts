import { Injectable } from '@nestjs/common';
import {
  ADMIN_ROLES,
  type AuditAction,
  MONITOR_LIMITS,
  decodeCursor,
  isBigintId,
  isJsonObject,
  isScoreMetric,
  keysetPage,
  monitorInputOf,
  notFound,
  validateMonitorInput,
  validationError,
} from '@app/domain';
import { type Monitor, type MonitorHistoryEntry, MonitorLimitError, MonitorStore } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';
import { type Actor, AccessService } from '../access/access.service';

type MonitorAuditAction = Extract<AuditAction, 'monitor.created' | 'monitor.updated' | 'monitor.deleted'>;

export interface MonitorHistoryPage {
  data: MonitorHistoryEntry[];
  meta: { nextCursor: string | null };
}

/**
 * Monitors of a project (issue 16; docs/evaluation.md "Monitors"): members read them and their history,
 * owners and admins change them. Fields are checked by `validateMonitorInput`, the one place of
 * their rules, before access is; the processor evaluates them.
 */
@Injectable()
export class MonitorsService {
  constructor(
    private readonly monitors: MonitorStore,
    private readonly access: AccessService,
    private readonly audit: AuditPublisher,
  ) {}

  async create(actor: Actor, projectId: string, fields: unknown): Promise<Monitor> {
    const settings = validateMonitorInput(fields);
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    let monitor: Monitor;
    try {
      monitor = await this.monitors.create(projectId, settings);
    } catch (err) {
      if (err instanceof MonitorLimitError) throw validationError(`projectId: ${err.message}`);
      throw err;
    }
    await this.record(actor, orgId, 'monitor.created', monitor);
    return monitor;
  }

  async list(actor: Actor, projectId: string): Promise<Monitor[]> {
    await this.access.requireProjectRole(actor, projectId);
    return this.monitors.list(projectId);
  }

  /** The fields sent replace the stored ones (a `filter` sent replaces the whole filter); the result is checked whole. */
  async update(actor: Actor, projectId: string, id: string, fields: unknown): Promise<Monitor> {
    if (!isJsonObject(fields)) throw validationError('input must be an object');
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const current = await this.monitors.get(projectId, id);
    if (!current) throw notFound(`monitor ${id} not found in project ${projectId}`);
    const merged: Record<string, unknown> = { ...monitorInputOf(current), ...fields };
    // A score metric's name goes when the metric is no longer one, unless the update names one.
    if (fields.metric !== undefined && fields.scoreName === undefined && !isScoreMetric(fields.metric)) delete merged.scoreName;
    const settings = validateMonitorInput(merged);
    const monitor = await this.monitors.update(projectId, id, settings);
    if (!monitor) throw notFound(`monitor ${id} not found in project ${projectId}`);
    await this.record(actor, orgId, 'monitor.updated', monitor, { changed: Object.keys(fields) });
    return monitor;
  }

  async delete(actor: Actor, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const current = await this.monitors.get(projectId, id);
    if (!current || !(await this.monitors.delete(projectId, id))) throw notFound(`monitor ${id} not found in project ${projectId}`);
    await this.record(actor, orgId, 'monitor.deleted', current);
    return { id, deleted: true };
  }

  async history(actor: Actor, projectId: string, id: string, cursor: string | undefined): Promise<MonitorHistoryPage> {
    const before = cursor === undefined ? null : decodeCursor<[string]>(cursor, [isBigintId])[0];
    await this.access.requireProjectRole(actor, projectId);
    if (!(await this.monitors.get(projectId, id))) throw notFound(`monitor ${id} not found in project ${projectId}`);
    const limit = MONITOR_LIMITS.historyPage;
    const { entries } = await this.monitors.history(id, before, limit + 1);
    const { data, nextCursor } = keysetPage(entries, limit, (entry) => [entry.id]);
    return { data: data.map(({ id: _id, ...entry }) => entry), meta: { nextCursor } };
  }

  private record(
    actor: Actor,
    orgId: string,
    action: MonitorAuditAction,
    monitor: Monitor,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    return this.audit.record({
      orgId,
      actorUserId: actor.userId,
      action,
      target: monitor.id,
      details: { projectId: monitor.projectId, name: monitor.name, ...extra },
      ip: actor.ip,
    });
  }
}
