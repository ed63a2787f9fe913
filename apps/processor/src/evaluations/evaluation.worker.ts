import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import { type EvalJobMessage, parseEvalJobMessage, webhookRequestBody } from '@app/domain';
import { CONSUMERS, ChunkPublisher, NatsResources, type PullConsumerRunner, appendEvaluationScore, jsonMessage, projectionRunner } from '@app/eventlog';
import { evaluatorCalls } from '@app/metrics';
import { claimEvalJob, finishEvalJob, isReachable } from '@app/persistence';
import { WebhookCaller } from './webhook-caller';

/**
 * Runs the evaluation jobs of EVALS (SPEC 6.1): checks each against its organization's eval
 * quota, calls the evaluator's webhook, appends the result to INGEST as an EVAL score and
 * counts the run. A job's outcome is recorded, so a redelivered job is not run again; a job
 * whose worker died mid-call runs again (at least once) but is counted once.
 */
@Injectable()
export class EvaluationWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private runner: PullConsumerRunner<EvalJobMessage> | null = null;
  private readonly caller: WebhookCaller;
  private readonly publisher: ChunkPublisher;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.caller = new WebhookCaller({ requireHttps: config.nodeEnv === 'production', allowPrivateNetworks: config.evaluatorAllowPrivateNetworks });
    this.publisher = new ChunkPublisher(nats.js, nats.layout.blobBucket, nats.maxMessageBytes);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.runner = projectionRunner<EvalJobMessage>(this.nats, {
      stream: 'evals',
      consumer: CONSUMERS.evaluationWorker,
      logger: this.logger,
      decode: jsonMessage(parseEvalJobMessage),
      // Jobs of a batch run side by side; the caller bounds calls per URL.
      apply: async (jobs) => {
        await Promise.all(jobs.map((job) => this.run(job)));
      },
      isHealthy: () => isReachable(this.ds),
    });
    await this.runner.start();
    this.logger.info('evaluation worker running');
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }

  private async run(job: EvalJobMessage): Promise<void> {
    const claimed = await claimEvalJob(this.ds, job.jobId, Date.now());
    if (claimed.kind === 'skipped') {
      evaluatorCalls.inc({ outcome: 'skipped' });
      this.logger.info({ jobId: job.jobId, evaluatorId: job.evaluatorId, reason: claimed.reason }, 'evaluation skipped');
      return;
    }
    if (claimed.kind === 'finished') return;
    const { run } = claimed;
    const { result, verdict, attempts } = await this.caller.evaluate(run.evaluator, webhookRequestBody(run.span, run.evaluator));
    await appendEvaluationScore(
      this.nats,
      this.publisher,
      { jobId: run.jobId, orgId: run.orgId, projectId: run.projectId, evaluatorName: run.evaluator.name, traceId: run.span.traceId, spanId: run.span.spanId },
      result,
      new Date().toISOString(),
    );
    await finishEvalJob(this.ds, run, result);
    evaluatorCalls.inc({ outcome: verdict });
    this.logger.debug({ jobId: run.jobId, evaluatorId: run.evaluator.id, score: result.score, pass: result.pass, attempts }, 'evaluation done');
  }
}
