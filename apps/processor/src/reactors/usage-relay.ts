import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { NatsResources, appendUsage } from '@app/eventlog';
import { relayUsage } from '@app/persistence';

const BATCH = 500;
const IDLE_MS = 250;

/**
 * Moves usage counted by the live projection from the outbox to the USAGE stream. Only the
 * live projection fills the outbox, so a rebuild never counts usage.
 */
@Injectable()
export class UsageRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private stopping = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    const { js, layout } = this.nats;
    while (!this.stopping) {
      try {
        const moved = await relayUsage(this.ds, BATCH, (events) => appendUsage(js, layout, events));
        if (moved < BATCH) await sleep(IDLE_MS);
      } catch (err) {
        this.logger.warn({ err: String(err) }, 'usage relay failed; retrying');
        await sleep(1_000);
      }
    }
  }
}
