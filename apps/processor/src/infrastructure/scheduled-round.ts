import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import { NatsResources } from '@app/eventlog';
import { PeriodicRound } from './periodic-round';

/** When rounds are due: every `intervalMs`, the first `firstDelayMs` after the processor starts (one interval unless told). */
export interface RoundSchedule {
  intervalMs: number;
  firstDelayMs?: number;
}

/**
 * A processor job that runs a round over the database and the streams on a schedule, from the
 * application's start to its shutdown, which waits for the round in progress (PeriodicRound).
 * A job names its schedule and its round; they alone differ.
 */
@Injectable()
export abstract class ScheduledRound implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rounds = new PeriodicRound(() => this.round());

  constructor(
    protected readonly ds: DataSource,
    protected readonly nats: NatsResources,
    @Inject(APP_CONFIG) protected readonly config: AppConfig,
    @Inject(LOGGER) protected readonly logger: Logger,
  ) {}

  protected abstract schedule(): RoundSchedule;

  /** Handles its own errors: a failed round is logged and the next one is tried on schedule. */
  protected abstract round(): Promise<void>;

  onApplicationBootstrap(): void {
    const { intervalMs, firstDelayMs } = this.schedule();
    this.rounds.start(intervalMs, firstDelayMs);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }
}
