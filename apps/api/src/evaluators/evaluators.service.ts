import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  ADMIN_ROLES,
  type AuditAction,
  EVALUATOR_LIMITS,
  TIME_ID_CURSOR,
  EVAL_JOB_STATUSES_OF_RUN,
  type EvalRun,
  type EvalRunStatus,
  type Evaluator,
  type EvaluatorWithSecret,
  type JudgeSettings,
  checkPatchOfKind,
  decodeCursor,
  keysetPage,
  notFound,
  templateUsesOutput,
  validateEvaluatorInput,
  validationError,
} from '@app/domain';
import { EvalJobs, EvaluatorStore, LlmConnectionStore, PromptTemplateStore } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';
import { type Actor, AccessService } from '../access/access.service';

/** A page of an evaluator's run log, newest first. */
export interface EvalRunPage {
  data: EvalRun[];
  meta: { nextCursor: string | null };
}

/** What a header value reads as in an answer that may not reveal it. */
export const MASKED_HEADER_VALUE = '***';

/**
 * Header values are secrets (most often the endpoint's Authorization), and reading a project
 * needs only membership. So an answer shows header values only to the request that sent
 * them (create, or an update that replaces the headers); every other answer (list, any other
 * update, a secret rotation) shows the names with "***". Stored values are never read back
 * to a client. The signing secret is shown by create and rotateSecret alone.
 */
const masked = <E extends Evaluator>(evaluator: E): E => ({
  ...evaluator,
  headers: Object.fromEntries(Object.keys(evaluator.headers).map((name) => [name, MASKED_HEADER_VALUE])),
});

type EvaluatorAuditAction = Extract<AuditAction, `evaluator.${string}`>;

/**
 * Webhook evaluator configuration per project (CONTRACT "Webhook evaluators"): members of the
 * project's organization read, owners and admins change. Fields are checked by
 * `validateEvaluatorInput`, the one place of their rules, before access is.
 */
@Injectable()
export class EvaluatorsService implements OnModuleInit {
  private readonly rules: { requireHttps: boolean; refuseNonPublicHosts: boolean };

  constructor(
    private readonly access: AccessService,
    private readonly store: EvaluatorStore,
    private readonly audit: AuditPublisher,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly connections: LlmConnectionStore,
    private readonly prompts: PromptTemplateStore,
    private readonly ds: DataSource,
  ) {
    // SPEC 2.6: HTTPS in production; elsewhere plain http lets a local endpoint be tried out.
    // A URL the worker would refuse to call is refused when saved, by the same setting.
    this.rules = { requireHttps: config.nodeEnv === 'production', refuseNonPublicHosts: !config.evaluatorAllowPrivateNetworks };
  }

  /** Seals what an older version stored in plaintext, and refuses to start with a key that does not open what is stored. */
  async onModuleInit(): Promise<void> {
    await this.store.prepare();
  }

  async create(actor: Actor, projectId: string, fields: unknown): Promise<EvaluatorWithSecret> {
    const settings = validateEvaluatorInput(fields, { partial: false, ...this.rules });
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    if (settings.judge) await this.requireJudgeReferences(projectId, settings.judge);
    const evaluator = await this.store.create(projectId, settings);
    await this.record(actor, orgId, 'evaluator.created', evaluator.id, { projectId, name: evaluator.name });
    return evaluator;
  }

  async list(actor: Actor, projectId: string): Promise<Evaluator[]> {
    await this.access.requireProjectRole(actor, projectId);
    return (await this.store.list(projectId)).map(masked);
  }

  async update(actor: Actor, projectId: string, id: string, fields: unknown): Promise<Evaluator> {
    const patch = validateEvaluatorInput(fields, { partial: true, ...this.rules });
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const current = await this.store.get(projectId, id);
    if (!current) throw notFound(`evaluator ${id} not found in project ${projectId}`);
    checkPatchOfKind(current.kind, patch);
    if (patch.judge) await this.requireJudgeReferences(projectId, patch.judge);
    const evaluator = await this.store.update(projectId, id, patch);
    if (!evaluator) throw notFound(`evaluator ${id} not found in project ${projectId}`);
    await this.record(actor, orgId, 'evaluator.updated', id, { projectId, name: evaluator.name, changed: Object.keys(patch) });
    return patch.headers ? evaluator : masked(evaluator);
  }

  /** A new signing secret, in force at once (the old one stops working); audited without it. */
  async rotateSecret(actor: Actor, projectId: string, id: string): Promise<EvaluatorWithSecret> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const rotated = await this.store.rotateSecret(projectId, id);
    if (!rotated) throw notFound(`evaluator ${id} not found in project ${projectId}`);
    await this.record(actor, orgId, 'evaluator.secret_rotated', id, { projectId, name: rotated.name });
    return masked(rotated);
  }

  async delete(actor: Actor, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    if (!(await this.store.delete(projectId, id))) throw notFound(`evaluator ${id} not found in project ${projectId}`);
    await this.record(actor, orgId, 'evaluator.deleted', id, { projectId });
    return { id, deleted: true };
  }

  /**
   * An evaluator's run log (issue 29), newest first: every job with its status, reason,
   * attempts, times, score, error and, for a judge, the model, tokens and cost of its call.
   */
  async runs(
    actor: Actor,
    projectId: string,
    id: string,
    status: EvalRunStatus | undefined,
    cursor: string | undefined,
  ): Promise<EvalRunPage> {
    const after = cursor === undefined ? null : decodeCursor<[string, string]>(cursor, TIME_ID_CURSOR);
    await this.access.requireProjectRole(actor, projectId);
    if (!(await this.store.get(projectId, id))) throw notFound(`evaluator ${id} not found in project ${projectId}`);
    const limit = EVALUATOR_LIMITS.runsPage;
    const rows = await new EvalJobs(this.ds.manager).runs(id, status ? EVAL_JOB_STATUSES_OF_RUN[status] : [], after, limit + 1);
    const { data, nextCursor } = keysetPage(rows, limit, (row) => row.position);
    return { data: data.map((row) => row.run), meta: { nextCursor } };
  }

  /**
   * What a judge names must exist in its project when it is saved: its connection, and a prompt
   * template (by label, else the default pick) that shows the judge the output it scores. A
   * prompt changed later is checked again at every run.
   */
  async requireJudgeReferences(projectId: string, judge: JudgeSettings): Promise<void> {
    if (!(await this.connections.get(projectId, judge.connectionId)))
      throw validationError(`judge.connectionId: this project has no LLM connection ${judge.connectionId}`);
    const { name, label } = judge.prompt;
    const resolved = await this.prompts.resolve(projectId, name, label === null ? { by: 'default' } : { by: 'label', label });
    if (!resolved)
      throw validationError(
        `judge.prompt.name: this project has no prompt template "${name}"${label === null ? '' : ` with label ${label}`}`,
      );
    if (!templateUsesOutput(resolved.version.template))
      throw validationError(
        `judge.prompt: template "${name}" version ${resolved.version.version} has no {{output}}: the judge would not see the output it scores`,
      );
  }

  /** Audited as API keys are; the details never hold header values, the signing secret, nor the URL (its query may carry a token). */
  private record(
    actor: Actor,
    orgId: string,
    action: EvaluatorAuditAction,
    target: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.record({ orgId, actorUserId: actor.userId, action, target, details, ip: actor.ip });
  }
}
