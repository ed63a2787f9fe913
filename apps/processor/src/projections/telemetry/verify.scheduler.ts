import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import { NatsResources } from '@app/eventlog';
import { verifyMismatches, verifyRounds } from '@app/metrics';
import { ProjectionCheckpoints, type ProjectionPosition, ScheduledJobRuns, withAdvisoryLock } from '@app/persistence';
import { type RoundSchedule, ScheduledRound } from '../../infrastructure/scheduled-round';
import { type ProjectVerification, type Verification, telemetryPosition, verifyTelemetry } from '@app/projections';

/** One processor checks at a time; the others skip the round. */
const VERIFY_LOCK = 'spanlog.verify.telemetry';

/**
 * `spanlog verify` on a schedule, over the requests applied since the last round: each must
 * have written its rows (those of deleted traces excepted). A difference is logged as an error
 * naming the projects; `spanlog verify --repair` mends it. Messages the consumer skipped
 * without applying them are the watermark check's to report (TelemetryProjection).
 */
@Injectable()
export class VerifyScheduler extends ScheduledRound {
  private progress!: ProjectionPosition;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    private readonly checkpoints: ProjectionCheckpoints,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  override onApplicationBootstrap(): void {
    // The round's progress is kept like a projection's: verified through this sequence.
    this.progress = { ...telemetryPosition(this.nats), projection: 'telemetry-verify' };
    super.onApplicationBootstrap();
  }

  protected schedule(): RoundSchedule {
    return {
      intervalMs: this.config.verifyIntervalMs,
      oncePerPeriod: { job: 'verify', runs: new ScheduledJobRuns(this.ds), logger: this.logger },
    };
  }

  protected async round(): Promise<void> {
    try {
      await withAdvisoryLock(this.ds, VERIFY_LOCK, async () => {
        const from = (await this.checkpoints.appliedThrough(this.progress)) + 1;
        const to = await this.checkpoints.appliedThrough(telemetryPosition(this.nats));
        if (to < from) return;
        const check = await verifyTelemetry(this.ds, this.nats, { fromSeq: from, toSeq: to });
        if (!check.clean) {
          this.logger.error(
            { fromSeq: from, toSeq: to, projects: check.projects.filter((p) => !p.clean).map(summary) },
            'applied requests are missing from the projections; run spanlog verify --repair',
          );
        }
        await this.checkpoints.markHandledThrough(this.progress, to);
        // Counted once the range is done with: a round that fails before checks it again.
        count(check);
      });
    } catch (err) {
      verifyRounds.inc({ outcome: 'failed' });
      this.logger.warn({ err: (err as Error).message }, 'scheduled verification failed; trying again next round');
    }
  }
}

function count(check: Verification): void {
  verifyRounds.inc({ outcome: check.clean ? 'clean' : 'mismatch' });
  for (const p of check.projects) {
    verifyMismatches.inc({ kind: 'traces' }, p.traces.missing);
    verifyMismatches.inc({ kind: 'spans' }, p.spans.missing);
    verifyMismatches.inc({ kind: 'scores' }, p.scores.missing);
    verifyMismatches.inc({ kind: 'unapplied' }, p.unapplied.count);
    verifyMismatches.inc({ kind: 'rejected' }, p.rejected.count);
  }
}

const summary = (p: ProjectVerification) => ({
  projectId: p.projectId,
  orgId: p.orgId,
  rejected: p.rejected.count,
  missing: { traces: p.traces.missing, spans: p.spans.missing, scores: p.scores.missing },
  seqs: p.writingMissingRows.seqs,
});
