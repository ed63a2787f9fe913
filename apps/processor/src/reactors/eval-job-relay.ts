import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { NatsResources, appendEvalJobs } from '@app/eventlog';
import type { EvalJobPublication } from '@app/domain';
import { EvalJobs } from '@app/persistence';
import { RelayLoop } from './relay-loop';
import { relayOutbox } from './relay-outbox';

/** Moves up to `limit` due jobs from `eval_jobs` to `publish`, marking them published once published. */
export const relayEvalJobs = (ds: DataSource, limit: number, publish: (jobs: EvalJobPublication[]) => Promise<void>): Promise<number> =>
  relayOutbox(
    ds,
    {
      take: (tx, n) => new EvalJobs(tx).takeDue(n),
      publish,
      settle: (tx, jobs) => new EvalJobs(tx).markPublished(jobs.map((j) => j.message.jobId)),
    },
    limit,
  );

/**
 * Moves the evaluation jobs the live projection created from `eval_jobs` to EVALS. Only the
 * live projection creates jobs, so a rebuild never calls a webhook.
 */
@Injectable()
export class EvalJobRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly loop: RelayLoop;

  constructor(ds: DataSource, nats: NatsResources, @Inject(LOGGER) logger: Logger) {
    this.loop = new RelayLoop(
      'evaluation job',
      (limit) => relayEvalJobs(ds, limit, (jobs) => appendEvalJobs(nats.js, nats.layout, jobs)),
      logger,
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }
}
