import { hostname } from 'node:os';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { type ScheduledJob, scheduledRounds } from '@app/metrics';
import type { ScheduledJobRuns } from '@app/persistence';
import type { Logger } from 'pino';
import { PeriodicRound } from './periodic-round';

/** Who runs a job's round, as its row shows it. */
const HOLDER = `${hostname()}:${process.pid}`;

/**
 * A job run once per period is looked at this often at least, so a run whose processor was
 * killed is taken over within about this (a daily job would otherwise wait a day).
 */
const LOOK_AT_LEAST_EVERY_MS = 60_000;

/** When rounds are due: every `intervalMs`, the first `firstDelayMs` after the processor starts (one interval unless told). */
export interface RoundSchedule {
  intervalMs: number;
  firstDelayMs?: number;
  /** The job runs once per period across processors (ScheduledJobRuns) instead of on each. */
  oncePerPeriod?: { job: ScheduledJob; runs: ScheduledJobRuns; logger: Logger };
}

/**
 * A processor job that runs a round on a schedule from the application's start to its
 * shutdown, which waits for the round in progress (PeriodicRound). A job names its schedule
 * and its round, and injects what they use.
 */
export abstract class ScheduledRound implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rounds = new PeriodicRound(() => this.dueRound());
  private plan!: RoundSchedule;
  private lookEveryMs!: number;

  protected abstract schedule(): RoundSchedule;

  /** Handles its own errors: a failed round is logged and the next one is tried on schedule. */
  protected abstract round(): Promise<void>;

  onApplicationBootstrap(): void {
    this.plan = this.schedule();
    const { intervalMs, firstDelayMs = intervalMs, oncePerPeriod } = this.plan;
    this.lookEveryMs = oncePerPeriod ? Math.min(intervalMs, LOOK_AT_LEAST_EVERY_MS) : intervalMs;
    this.rounds.start(this.lookEveryMs, firstDelayMs);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  private async dueRound(): Promise<void> {
    const once = this.plan.oncePerPeriod;
    if (!once) return this.round();
    // Due a tenth of a look early: processors look each at its own phase, and a timer that fires
    // a little early must still find its period due. A job runs once an interval, give or take a look.
    const dueAfterMs = this.plan.intervalMs - this.lookEveryMs / 10;
    const outcome = await once.runs
      .runIfDue(once.job, HOLDER, dueAfterMs, () => this.round())
      .catch((err: Error) => {
        // The run stays unfinished (or never started): the next look runs it.
        once.logger.error({ job: once.job, err: err.message }, 'scheduled job could not be run or recorded; trying again next look');
        return 'failed' as const;
      });
    scheduledRounds.inc({ job: once.job, outcome });
  }
}
