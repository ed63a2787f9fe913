import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { NatsResources, appendEvalJobs } from '@app/eventlog';
import { relayEvalJobs } from '@app/persistence';
import { RelayLoop } from './relay-loop';

/**
 * Moves the evaluation jobs the live projection created from `eval_jobs` to EVALS. Only the
 * live projection creates jobs, so a rebuild never calls a webhook.
 */
@Injectable()
export class EvalJobRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly loop: RelayLoop;

  constructor(ds: DataSource, nats: NatsResources, @Inject(LOGGER) logger: Logger) {
    this.loop = new RelayLoop('evaluation job', (limit) => relayEvalJobs(ds, limit, (jobs) => appendEvalJobs(nats.js, nats.layout, jobs)), logger);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }
}
