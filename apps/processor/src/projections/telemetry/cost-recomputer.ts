import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { costRecomputeSpans } from '@app/metrics';
import { recomputeCostStep } from '@app/projections';
import { PeriodicRound } from '../../infrastructure/periodic-round';

/** How often a running recomputation is looked for: a definition change starts one within about this. */
const LOOK_EVERY_MS = 1_000;

/**
 * Recomputes the cost of a project's spans after one of its price definitions changed
 * (`recomputeCostStep`), step after step while one is running, so reads answer throughout and
 * the progress is stored with each step. Every processor runs it; a step holds its
 * recomputation's row, so two processors share out different projects' recomputations, and a
 * processor killed mid-step leaves the step to the next. A failing step is logged and tried
 * again next round.
 */
@Injectable()
export class CostRecomputer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly rounds = new PeriodicRound(() => this.drain());
  private stopping = false;

  constructor(
    private readonly ds: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    costRecomputeSpans.labels({ outcome: 'recosted' }).inc(0);
    costRecomputeSpans.labels({ outcome: 'unchanged' }).inc(0);
    this.rounds.start(LOOK_EVERY_MS);
  }

  /** Stops after the step in progress: the rest is taken up where it stopped. */
  beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    return this.rounds.stop();
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopping) {
        const step = await recomputeCostStep(this.ds);
        if (!step) return;
        costRecomputeSpans.labels({ outcome: 'recosted' }).inc(step.recosted);
        costRecomputeSpans.labels({ outcome: 'unchanged' }).inc(step.looked - step.recosted);
        if (step.done) this.logger.info({ projectId: step.projectId }, 'cost recomputation done');
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'cost recomputation step failed; trying again next round');
    }
  }
}
