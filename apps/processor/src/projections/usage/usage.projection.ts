import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { type UsageCounted, parseUsageCounted } from '@app/domain';
import { CONSUMERS, NatsResources, PermanentMessageError, PullConsumerRunner } from '@app/eventlog';
import { applyUsage } from '@app/persistence';

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
    const { js, jsm, layout } = this.nats;
    const stream = layout.streamName('usage');
    const durable = layout.consumerName(CONSUMERS.usageProjector);
    this.runner = new PullConsumerRunner<UsageCounted>({
      js,
      jsm,
      stream,
      durable,
      deadLetterSubject: layout.deadLetterSubject(stream, durable),
      logger: this.logger.child({ consumer: durable }),
      decode: async (msg) => {
        try {
          return parseUsageCounted(JSON.parse(new TextDecoder().decode(msg.data)));
        } catch (err) {
          throw new PermanentMessageError((err as Error).message);
        }
      },
      apply: (events) => this.ds.transaction((m) => applyUsage(m, events)),
      isHealthy: () => this.ds.query('SELECT 1').then(() => true, () => false),
    });
    await this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }
}
