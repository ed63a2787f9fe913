import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { NatsResources, appendUsage } from '@app/eventlog';
import type { UsageCounted } from '@app/domain';
import { UsageOutbox } from '@app/persistence';
import { RelayLoop } from './relay-loop';
import { relayOutbox } from './relay-outbox';

/** Moves up to `limit` counts from `usage_outbox` to `publish`, deleting them once published. */
export const relayUsage = (ds: DataSource, limit: number, publish: (events: UsageCounted[]) => Promise<void>): Promise<number> =>
  relayOutbox(
    ds,
    { take: (tx, n) => new UsageOutbox(tx).take(n), publish, settle: (tx, events) => new UsageOutbox(tx).delete(events.map((e) => e.id)) },
    limit,
  );

/**
 * Moves usage counted by the live projection from the outbox to the USAGE stream. Only the
 * live projection fills the outbox, so a rebuild never counts usage.
 */
@Injectable()
export class UsageRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly loop: RelayLoop;

  constructor(ds: DataSource, nats: NatsResources, @Inject(LOGGER) logger: Logger) {
    this.loop = new RelayLoop('usage', (limit) => relayUsage(ds, limit, (events) => appendUsage(nats.js, nats.layout, events)), logger);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }
}
