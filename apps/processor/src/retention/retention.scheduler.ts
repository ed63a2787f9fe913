import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import { NatsResources, auditRetention, retentionEventLog } from '@app/eventlog';
import { retentionDeleted, retentionRuns } from '@app/metrics';
import { ScheduledJobRuns } from '@app/persistence';
import { type RetentionRun, runRetention } from '@app/projections';
import { type RoundSchedule, ScheduledRound } from '../infrastructure/scheduled-round';

const DAY_MS = 86_400_000;

/**
 * The daily retention cleanup (SPEC 8.5). Every processor schedules it; the one that claims
 * the day runs it, and the run's advisory lock keeps it apart from any other run (a round
 * longer than a day, `spanlog admin retention run`, which runs the same code).
 */
@Injectable()
export class RetentionScheduler extends ScheduledRound {
  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  /** The first run waits (a minute by default), so a restarting fleet does not clean before it serves. */
  protected schedule(): RoundSchedule {
    return {
      intervalMs: DAY_MS,
      firstDelayMs: this.config.retentionFirstRunDelayMs,
      oncePerPeriod: { job: 'retention', runs: new ScheduledJobRuns(this.ds), logger: this.logger },
    };
  }

  protected async round(): Promise<void> {
    let run: RetentionRun;
    try {
      run = await runRetention(this.ds, retentionEventLog(this.nats), Date.now());
    } catch (err) {
      retentionRuns.inc({ outcome: 'failed' });
      this.logger.error({ err: String(err) }, 'retention run failed; next try in a day');
      return;
    }
    countRetentionRun(run);
    if (!run.ran) {
      this.logger.info({ reason: run.reason }, 'retention skipped');
      return;
    }
    try {
      await auditRetention(this.nats, run.organizations);
      this.logger.info({ organizations: run.organizations }, 'retention run finished');
    } catch (err) {
      this.logger.error(
        { err: String(err), organizations: run.organizations },
        'retention run finished, but its audit entries could not be appended',
      );
    }
  }
}

/** A finished run counts what it deleted; a skipped one only that it was skipped. */
export function countRetentionRun(run: RetentionRun): void {
  retentionRuns.inc({ outcome: run.ran ? 'finished' : 'skipped' });
  if (!run.ran) return;
  for (const org of run.organizations) {
    retentionDeleted.inc({ kind: 'traces' }, org.traces);
    retentionDeleted.inc({ kind: 'spans' }, org.spans);
    retentionDeleted.inc({ kind: 'scores' }, org.scores);
    retentionDeleted.inc({ kind: 'messages' }, org.removedMessages);
  }
}
