import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicRound } from './periodic-round';

/** When rounds are due: every `intervalMs`, the first `firstDelayMs` after the processor starts (one interval unless told). */
export interface RoundSchedule {
  intervalMs: number;
  firstDelayMs?: number;
}

/**
 * A processor job that runs a round on a schedule from the application's start to its
 * shutdown, which waits for the round in progress (PeriodicRound). A job names its schedule
 * and its round, and injects what they use.
 */
export abstract class ScheduledRound implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rounds = new PeriodicRound(() => this.round());

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
