import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { type UsageCounted, parseUsageCounted } from '@app/domain';
import { CONSUMERS, NatsResources, type PullConsumerRunner, jsonMessage, projectionRunner } from '@app/eventlog';
import { applyUsage, isReachable } from '@app/persistence';

/** Projects USAGE into per-organization, per-UTC-month counters; each count's id applies once. */
@Injectable()
export class UsageProjection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private runner: PullConsumerRunner<UsageCounted> | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runner = projectionRunner<UsageCounted>(this.nats, {
      stream: 'usage',
      consumer: CONSUMERS.usageProjector,
      logger: this.logger,
      decode: jsonMessage(parseUsageCounted),
      apply: (events) => this.ds.transaction((m) => applyUsage(m, events)),
      isHealthy: () => isReachable(this.ds),
    });
    await this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }
}
