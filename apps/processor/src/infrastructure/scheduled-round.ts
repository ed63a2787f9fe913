import { hostname } from 'node:os';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { scheduledRounds } from '@app/metrics';
import type { ScheduledJobClaims } from '@app/persistence';
import { PeriodicRound } from './periodic-round';

/** Who claimed a period, as the job's row shows it. */
const HOLDER = `${hostname()}:${process.pid}`;

/** When rounds are due: every `intervalMs`, the first `firstDelayMs` after the processor starts (one interval unless told). */
export interface RoundSchedule {
  intervalMs: number;
  firstDelayMs?: number;
  /** The job runs once per period across processors: the processor that claims the period runs its round, the others skip it. */
  oncePerPeriod?: { job: string; claims: ScheduledJobClaims };
}

/**
 * A processor job that runs a round on a schedule from the application's start to its
 * shutdown, which waits for the round in progress (PeriodicRound). A job names its schedule
 * and its round, and injects what they use.
 */
export abstract class ScheduledRound implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rounds = new PeriodicRound(() => this.dueRound());
  private plan!: RoundSchedule;

  protected abstract schedule(): RoundSchedule;

  /** Handles its own errors: a failed round is logged and the next one is tried on schedule. */
  protected abstract round(): Promise<void>;

  onApplicationBootstrap(): void {
    this.plan = this.schedule();
    this.rounds.start(this.plan.intervalMs, this.plan.firstDelayMs);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  private async dueRound(): Promise<void> {
    const once = this.plan.oncePerPeriod;
    if (once) {
      // Unclaimable means Postgres is unreachable: the round, which needs it too, runs to fail and say so in its own log.
      const claimed = await once.claims.claim(once.job, HOLDER, this.plan.intervalMs).catch(() => true);
      scheduledRounds.inc({ job: once.job, outcome: claimed ? 'ran' : 'elsewhere' });
      if (!claimed) return;
    }
    await this.round();
  }
}
