import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { type TraceEvaluationPoll, TraceEvaluations } from '@app/persistence';
import { RelayLoop } from '../reactors/relay-loop';

/**
 * Takes up to `limit` due trace evaluations in one transaction and makes their jobs, which
 * `EvalJobRelay` publishes like any other. Rows are locked with SKIP LOCKED and a job is
 * unique per evaluator, trace and run: several processors poll at once and each run is made once.
 */
export const pollTraceEvaluations = (ds: DataSource, limit: number): Promise<TraceEvaluationPoll> =>
  ds.transaction((m) => new TraceEvaluations(m).enqueueDue(limit));

/**
 * Trace-level evaluation (issue 29): turns the traces the live projection found complete and
 * quiet (`trace_evaluations_pending`, due) into evaluation jobs, a quarter of a second at most
 * after they come due while idle.
 */
@Injectable()
export class TraceEvaluationPoller implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly loop: RelayLoop;

  constructor(ds: DataSource, @Inject(LOGGER) logger: Logger) {
    this.loop = new RelayLoop('trace evaluation', async (limit) => (await pollTraceEvaluations(ds, limit)).taken, logger);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }
}
