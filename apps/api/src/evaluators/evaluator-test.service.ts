import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  ADMIN_ROLES,
  type EvalRunReason,
  type EvalRunStatus,
  type EvaluationTarget,
  type EvaluatorSettings,
  type JudgeCallRecord,
  notFound,
  evaluationRequestBody,
  targetIds,
  traceIdCandidates,
  validateEvaluatorInput,
  validationError,
} from '@app/domain';
import {
  JudgeCaller,
  PerUrlLimits,
  type SettledRun,
  WebhookCaller,
  evaluateWithJudge,
  settledAgainstConfigs,
  settledWebhookRun,
} from '@app/evaluation';
import {
  EvaluationTargets,
  EvaluatorStore,
  ExpectedOutputs,
  LlmConnectionStore,
  PromptTemplateStore,
  ScoreConfigStore,
  newSigningSecret,
} from '@app/persistence';
import { type Actor, AccessService } from '../access/access.service';
import { READ_DB } from '../infrastructure/read-db';
import { EvaluatorsService } from './evaluators.service';

/** What `evaluator.test` asks: a saved evaluator or a configuration, on a span or a trace. */
export interface EvaluatorTestRequest {
  evaluatorId?: string;
  config?: unknown;
  spanId?: string;
  traceId?: string;
}

/** What one run would have recorded and scored; nothing of it is stored. */
export interface EvaluatorTestResult {
  target: { traceId: string; spanId: string | null };
  status: Extract<EvalRunStatus, 'succeeded' | 'failed'>;
  reason: EvalRunReason | null;
  error: string | null;
  attempts: number;
  /** The score it would write (a number, or a judge's category); null when it would write none. */
  score: number | string | null;
  pass: boolean | null;
  comment: string | null;
  judge: JudgeCallRecord | null;
}

/**
 * `evaluator.test` (issue 29, "try before enabling"): runs an evaluator once on a chosen span
 * or trace (the trace as a trace job reads it, once quiet or not) by the worker's rules, and answers what it would score:
 * a score the project's config of the evaluator's name refuses is a failed run, as a real run's would be. It stores
 * nothing, counts no eval run and writes no score. Owners and admins only: it calls out with the
 * evaluator's or the connection's secrets.
 */
@Injectable()
export class EvaluatorTestService {
  private readonly webhooks: WebhookCaller;
  private readonly judges: JudgeCaller;
  private readonly targets: EvaluationTargets;
  private readonly expectedOutputs: ExpectedOutputs;
  private readonly rules: { requireHttps: boolean; refuseNonPublicHosts: boolean };

  constructor(
    private readonly access: AccessService,
    private readonly evaluators: EvaluatorsService,
    private readonly store: EvaluatorStore,
    private readonly connections: LlmConnectionStore,
    private readonly prompts: PromptTemplateStore,
    private readonly scoreConfigs: ScoreConfigStore,
    ds: DataSource,
    @Inject(READ_DB) readDs: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const policy = { requireHttps: config.nodeEnv === 'production', allowPrivateNetworks: config.evaluatorAllowPrivateNetworks };
    const limits = new PerUrlLimits();
    this.webhooks = new WebhookCaller(policy, undefined, limits);
    this.judges = new JudgeCaller(policy, undefined, limits);
    // The span or trace tried is telemetry the member picked from a read: read where reads go.
    this.targets = new EvaluationTargets(readDs);
    this.expectedOutputs = new ExpectedOutputs(ds);
    this.rules = { requireHttps: policy.requireHttps, refuseNonPublicHosts: !policy.allowPrivateNetworks };
  }

  async test(actor: Actor, projectId: string, request: EvaluatorTestRequest): Promise<EvaluatorTestResult> {
    if ((request.evaluatorId === undefined) === (request.config === undefined))
      throw validationError('evaluatorId: give exactly one of evaluatorId and config');
    if ((request.spanId === undefined) === (request.traceId === undefined))
      throw validationError('spanId: give exactly one of spanId and traceId');
    const config = request.config === undefined ? null : validateEvaluatorInput(request.config, { partial: false, ...this.rules });
    await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    const saved = request.evaluatorId === undefined ? null : await this.store.get(projectId, request.evaluatorId);
    if (request.evaluatorId !== undefined && !saved) throw notFound(`evaluator ${request.evaluatorId} not found in project ${projectId}`);
    const settings = (saved ?? config) as EvaluatorSettings;
    if (settings.judge) await this.evaluators.requireJudgeReferences(projectId, settings.judge);
    const target = await this.target(projectId, request);
    const ran = settings.judge ? await this.judge(projectId, settings, target) : await this.webhook(saved?.id ?? null, settings, target);
    const configs = ran.score ? await this.scoreConfigs.inForce(projectId, [settings.name]) : new Map();
    const settled = settledAgainstConfigs(ran, settings.name, configs);
    const { record } = settled;
    return {
      target: targetIds(target),
      status: record.status === 'done' ? 'succeeded' : 'failed',
      reason: record.reason,
      error: record.error,
      attempts: record.attempts,
      score: settled.score ? settled.score.value : null,
      pass: record.pass,
      comment: record.comment,
      judge: record.judge,
    };
  }

  private async target(projectId: string, { spanId, traceId }: EvaluatorTestRequest): Promise<EvaluationTarget> {
    if (spanId !== undefined) {
      const span = await this.targets.span(projectId, spanId);
      if (!span) throw notFound(`span ${spanId} not found in project ${projectId}`);
      return span;
    }
    const trace = await this.targets.trace(projectId, traceIdCandidates(traceId as string));
    if (!trace) throw notFound(`trace ${traceId} not found in project ${projectId}`);
    return trace;
  }

  private async judge(projectId: string, settings: EvaluatorSettings, target: EvaluationTarget): Promise<SettledRun> {
    const judge = settings.judge!;
    const connection = await this.connections.get(projectId, judge.connectionId);
    if (!connection) throw validationError(`judge.connectionId: this project has no LLM connection ${judge.connectionId}`);
    return evaluateWithJudge(
      {
        connections: this.connections,
        prompts: this.prompts,
        expectedOutputs: this.expectedOutputs,
        caller: this.judges,
        store: (work) => work(),
      },
      { projectId, judge, baseUrl: connection.baseUrl, timeoutMs: settings.timeoutMs, retries: settings.retries },
      target,
    );
  }

  /**
   * A webhook's test call, with the body a job on the same target sends (SPEC 6.1's for a span,
   * the trace's for a trace), signed with the evaluator's secret when it is saved, else with a
   * secret of this call alone.
   */
  private async webhook(id: string | null, settings: EvaluatorSettings, target: EvaluationTarget): Promise<SettledRun> {
    const secrets = id ? await this.store.secrets(id) : { headers: settings.headers, signingSecret: newSigningSecret() };
    if (!secrets) throw notFound(`evaluator ${id} no longer exists`);
    const evaluator = { ...settings, id: id ?? 'test', url: settings.url as string };
    const evaluation = await this.webhooks.evaluate({
      target: evaluator,
      secrets,
      messageId: `test-${randomUUID()}`,
      body: evaluationRequestBody(target, evaluator),
    });
    return settledWebhookRun(evaluation);
  }
}
