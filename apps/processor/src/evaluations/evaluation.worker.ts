import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import {
  EVALUATOR_LIMITS,
  type EvalJobMessage,
  type Evaluation,
  evaluationOf,
  evaluationRequestBody,
  evaluationScoreId,
  parseEvalJobMessage,
  targetIds,
} from '@app/domain';
import { CONSUMERS, ChunkPublisher, type JobConsumer, NatsResources, appendEvaluationScore, jobConsumer, jsonMessage } from '@app/eventlog';
import { evaluatorCalls, evaluatorRuns } from '@app/metrics';
import {
  type EvaluatorSecrets,
  EvaluatorStore,
  ExpectedOutputs,
  LlmConnectionStore,
  PromptTemplateStore,
  ScoreConfigStore,
  SecretBox,
  SecretBoxError,
  isReachable,
} from '@app/persistence';
import { type EvaluationToRun, claimEvalJob, finishEvalJob } from './eval-job-claim';
import {
  JudgeCaller,
  PerUrlLimits,
  type SettledRun,
  WebhookCaller,
  evaluateWithJudge,
  settledAgainstConfigs,
  settledWebhookRun,
} from '@app/evaluation';
import { UrlShares } from './url-shares';

/**
 * Claims and results go through the processor's Postgres pool, which the projections need
 * too: a burst of jobs may use this many connections at once, not the whole pool.
 */
const STORE_CONCURRENCY = 4;

/**
 * Runs the evaluation jobs of EVALS (SPEC 6.1): checks each against its organization's eval
 * quota, calls the evaluator's webhook or asks its LLM judge about the span or trace, appends the result to INGEST as an EVAL score and
 * counts the run. A job's outcome is recorded, so a redelivered job is not run again; a job
 * whose worker died mid-call runs again (at least once) but is counted once.
 *
 * Jobs run independently and are acked one by one (JobConsumer), so a URL that answers late
 * delays only its own jobs: the 10 calls in flight per URL (WebhookCaller) hold a URL back,
 * and a URL that already holds its share of the worker (`jobsHeldPerUrl`) has its further
 * jobs deferred, so that its backlog cannot fill the worker either.
 */
@Injectable()
export class EvaluationWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private consumer: JobConsumer<EvalJobMessage> | null = null;
  private readonly caller: WebhookCaller;
  private readonly judges: JudgeCaller;
  private readonly connections: LlmConnectionStore;
  private readonly prompts: PromptTemplateStore;
  private readonly expectedOutputs: ExpectedOutputs;
  private readonly publisher: ChunkPublisher;
  private readonly shares = new UrlShares(EVALUATOR_LIMITS.jobsHeldPerUrl);
  private readonly store = pLimit(STORE_CONCURRENCY);
  private readonly scoreConfigs: ScoreConfigStore;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    private readonly evaluators: EvaluatorStore,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    const policy = { requireHttps: config.nodeEnv === 'production', allowPrivateNetworks: config.evaluatorAllowPrivateNetworks };
    // One limit per URL for both kinds: a judge's base URL that is also a webhook's has 10 calls in flight, not 20.
    const limits = new PerUrlLimits();
    this.caller = new WebhookCaller(policy, undefined, limits);
    this.judges = new JudgeCaller(policy, undefined, limits);
    this.connections = new LlmConnectionStore(ds, new SecretBox(config.secretKey));
    this.prompts = new PromptTemplateStore(ds);
    this.expectedOutputs = new ExpectedOutputs(ds);
    this.publisher = new ChunkPublisher(nats.js, nats.layout, nats.maxMessageBytes);
    this.scoreConfigs = new ScoreConfigStore(ds);
  }

  async onApplicationBootstrap(): Promise<void> {
    // A key that does not open the stored secrets stops the processor here, before any job fails on it.
    const sealed = await this.evaluators.prepare();
    if (sealed) this.logger.info({ evaluators: sealed }, 'sealed evaluator secrets stored in plaintext by an older version');
    this.consumer = jobConsumer<EvalJobMessage>(this.nats, {
      stream: 'evals',
      consumer: CONSUMERS.evaluationWorker,
      logger: this.logger,
      decode: jsonMessage(parseEvalJobMessage),
      run: (job, signal) => this.run(job, signal),
      isHealthy: () => isReachable(this.ds),
      maxInHand: EVALUATOR_LIMITS.jobsInHand,
    });
    await this.consumer.start();
    this.logger.info('evaluation worker running');
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  private async run(job: EvalJobMessage, signal: AbortSignal): Promise<void> {
    const held: { url: string | null } = { url: null };
    const admit = (url: string): boolean => {
      if (!this.shares.take(url)) return false;
      held.url = url;
      return true;
    };
    try {
      const claimed = await this.store(() => claimEvalJob(this.ds, job.jobId, Date.now(), admit));
      switch (claimed.kind) {
        case 'skipped':
          evaluatorCalls.inc({ outcome: 'skipped' });
          evaluatorRuns.inc({ kind: claimed.evaluatorKind, outcome: 'skipped' });
          this.logger.info({ jobId: job.jobId, evaluatorId: job.evaluatorId, reason: claimed.reason }, 'evaluation skipped');
          return;
        case 'failed':
          evaluatorRuns.inc({ kind: claimed.evaluatorKind, outcome: 'failed' });
          this.logger.info({ jobId: job.jobId, evaluatorId: job.evaluatorId, reason: claimed.reason }, 'evaluation failed before its call');
          return;
        case 'deferred':
          this.logger.debug(
            { jobId: job.jobId, evaluatorId: job.evaluatorId, delayMs: claimed.delayMs },
            'evaluation deferred: its URL has its share of the worker',
          );
          return;
        case 'finished':
          return;
        case 'run':
          return await this.evaluate(claimed.run, signal);
      }
    } finally {
      if (held.url) this.shares.release(held.url);
    }
  }

  private async evaluate(run: EvaluationToRun, signal: AbortSignal): Promise<void> {
    const { evaluator } = run;
    const settled =
      evaluator.kind === 'llm-judge' && evaluator.judge
        ? await evaluateWithJudge(
            {
              connections: this.connections,
              prompts: this.prompts,
              expectedOutputs: this.expectedOutputs,
              caller: this.judges,
              store: this.store,
            },
            {
              projectId: run.projectId,
              judge: evaluator.judge,
              baseUrl: evaluator.url,
              timeoutMs: evaluator.timeoutMs,
              retries: evaluator.retries,
            },
            run.target,
            signal,
          )
        : await this.callWebhook(run, signal);
    if (!settled) return;
    const { score, record } = await this.checkedAgainstConfig(run, settled);
    if (score) {
      await appendEvaluationScore(
        this.nats,
        this.publisher,
        {
          jobId: run.jobId,
          // A trace's score id is fixed per evaluator and trace: its second run replaces the first's score.
          scoreId: evaluationScoreId(run.jobId, evaluator.id, run.target),
          orgId: run.orgId,
          projectId: run.projectId,
          evaluatorName: evaluator.name,
          ...targetIds(run.target),
        },
        score,
        new Date().toISOString(),
      );
    }
    await this.store(() => finishEvalJob(this.ds, run, record));
    evaluatorRuns.inc({ kind: evaluator.kind, outcome: record.status === 'done' ? 'succeeded' : 'failed' });
    // Never the connection's key nor the evaluator's headers: the run's own figures only.
    this.logger.debug(
      {
        jobId: run.jobId,
        evaluatorId: evaluator.id,
        kind: evaluator.kind,
        status: record.status,
        reason: record.reason,
        attempts: record.attempts,
      },
      'evaluation done',
    );
  }

  /** A score its config (issue 30) refuses is not written (`settledAgainstConfigs`): the run is failed, and its error says why. */
  private async checkedAgainstConfig(run: EvaluationToRun, settled: SettledRun): Promise<SettledRun> {
    if (!settled.score) return settled;
    const configs = await this.store(() => this.scoreConfigs.inForce(run.projectId, [run.evaluator.name]));
    const checked = settledAgainstConfigs(settled, run.evaluator.name, configs);
    if (checked !== settled)
      this.logger.warn(
        { jobId: run.jobId, evaluatorId: run.evaluator.id, reason: checked.record.error },
        'evaluation score refused by its score config',
      );
    return checked;
  }

  /** A webhook's run (SPEC 6.1): an error result still writes its score 0 and fail (rule 2), marked as an error, on a failed run. */
  private async callWebhook(run: EvaluationToRun, signal: AbortSignal): Promise<SettledRun | null> {
    const secrets = await this.secrets(run);
    if (!secrets) return null;
    const evaluation =
      'failure' in secrets
        ? { ...secrets.failure, attempts: 0 }
        : await this.caller.evaluate(
            { target: run.evaluator, secrets, messageId: run.jobId, body: evaluationRequestBody(run.target, run.evaluator) },
            signal,
          );
    evaluatorCalls.inc({ outcome: evaluation.verdict });
    return settledWebhookRun(evaluation);
  }

  /**
   * The evaluator's secrets; null when the evaluator is gone (its jobs went with it). Secrets
   * that do not open make a call that cannot be made: a result, like any other failure.
   */
  private async secrets(run: EvaluationToRun): Promise<EvaluatorSecrets | { failure: Evaluation } | null> {
    try {
      return await this.store(() => this.evaluators.secrets(run.evaluator.id));
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      return {
        failure: evaluationOf(
          { kind: 'unsendable', message: `the evaluator's headers or signing secret cannot be read: ${err.message}` },
          1,
        ),
      };
    }
  }
}
