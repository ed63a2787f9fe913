import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { ChunkReader, NatsResources } from '@app/eventlog';
import { auditProjection, usageProjection } from '@app/projections';
import { liveRunner } from './live-runner';

/**
 * The projections whose live mode is their definition alone, each batch in a transaction of its
 * own: audit (AUDIT into the audit log) and usage (USAGE into the monthly counters). Their ids
 * make a redelivery a no-op, so they keep no checkpoint and have no live-only hook.
 */
@Injectable()
export class PlainProjections implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private runners: { start(): Promise<void>; stop(): Promise<void> }[] = [];

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    private readonly chunks: ChunkReader,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const deps = { ds: this.ds, nats: this.nats, chunks: this.chunks, logger: this.logger };
    this.runners = [liveRunner(auditProjection, deps), liveRunner(usageProjection, deps)];
    for (const runner of this.runners) await runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
  }
}
