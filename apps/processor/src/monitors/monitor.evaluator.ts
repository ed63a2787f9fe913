import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import { type AuditEvent, evaluationWindow, monitorStateOf, monitorValue } from '@app/domain';
import { NatsResources, publishAuditEvent } from '@app/eventlog';
import { type Monitor, MonitorStore, ProjectionCheckpoints, ScheduledJobRuns, withAdvisoryLock } from '@app/persistence';
import { type RoundSchedule, ScheduledRound } from '../infrastructure/scheduled-round';
import { relayStateChangeAudits } from './monitor-audit-relay';
import { hasDirtyOverviewBucket, modelStatsProjection, readWindowSums, telemetryLag, telemetryProjection } from '@app/projections';

/** One processor evaluates at a time; the others skip the round. */
const MONITOR_LOCK = 'spanlog.monitors';
/** State changes audited per transaction. */
const AUDITS_PER_TRANSACTION = 100;
/** Rounds a monitor may go unevaluated before the processor warns that its state is stale. */
const STALE_AFTER_ROUNDS = 10;

/**
 * Evaluates every enabled monitor every `SPANLOG_MONITOR_INTERVAL_MS` over the overview stats,
 * by event time (docs/evaluation.md "Monitors"). Only states the data supports are written:
 * - a round is skipped while the stats or the telemetry they are counted from are being
 *   rebuilt to a new version (the serving version is older than this code's), or while the
 *   telemetry projection is more than `SPANLOG_MONITOR_MAX_LAG` messages behind the stream;
 * - a monitor is skipped while a stats bucket of its window awaits its recount (a rebuild
 *   marks every bucket, so none is judged on stats half recounted), and keeps its state; one
 *   skipped for STALE_AFTER_ROUNDS rounds is logged as a warning, once, since late batches
 *   into its window arriving every few seconds could keep it skipped (the gauge
 *   `spanlog_monitor_evaluation_age_max_seconds` shows it too);
 * - windows end at a 5-minute boundary at least `SPANLOG_MONITOR_SETTLE_MS` ago, so a batch
 *   arriving a little late is counted before its window is judged.
 * A change of state is written with its history row and audit outbox row in one transaction;
 * every round then audits the changes in the outbox, so a change made while NATS was
 * unreachable is audited on a later round, even if its monitor was deleted meanwhile.
 */
@Injectable()
export class MonitorEvaluator extends ScheduledRound {
  /** Why the last round was skipped, so a long skip is logged once rather than every round. */
  private skipped: string | null = null;
  /** Monitors warned about as stale, so each long skip is logged once. */
  private readonly stale = new Set<string>();

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    private readonly monitors: MonitorStore,
    private readonly checkpoints: ProjectionCheckpoints,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected schedule(): RoundSchedule {
    return {
      intervalMs: this.config.monitorIntervalMs,
      oncePerPeriod: { job: 'monitors', runs: new ScheduledJobRuns(this.ds), logger: this.logger },
    };
  }

  protected round(): Promise<void> {
    return this.runRound();
  }

  /** One round: evaluates every enabled monitor as of `now` unless the stats are not ready, then audits state changes. */
  async runRound(now = Date.now()): Promise<void> {
    try {
      await withAdvisoryLock(this.ds, MONITOR_LOCK, async () => {
        const reason = await this.notReady();
        if (reason) {
          if (reason !== this.skipped) this.logger.info({ reason }, 'monitor evaluation paused; monitors keep their states');
          this.skipped = reason;
          return;
        }
        if (this.skipped) this.logger.info('monitor evaluation resumed');
        this.skipped = null;
        await this.evaluateAll(now);
      });
      await this.auditStateChanges();
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, 'monitor evaluation round failed; trying again next round');
    }
  }

  private async auditStateChanges(): Promise<void> {
    try {
      const publish = async (events: AuditEvent[]) => {
        for (const event of events) await publishAuditEvent(this.nats.js, this.nats.layout, event);
      };
      while ((await relayStateChangeAudits(this.ds, AUDITS_PER_TRANSACTION, publish)) === AUDITS_PER_TRANSACTION);
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, 'monitor state changes could not be audited yet; trying again next round');
    }
  }

  private async notReady(): Promise<string | null> {
    for (const projection of [telemetryProjection, modelStatsProjection]) {
      const serving = await this.checkpoints.servingVersion(projection.name);
      if (serving !== null && serving < projection.version)
        return `the ${projection.name} projection is being rebuilt to version ${projection.version}`;
    }
    const lag = await telemetryLag(this.ds, this.nats);
    if (lag > this.config.monitorMaxLagMessages)
      return `the telemetry projection is ${lag} messages behind (SPANLOG_MONITOR_MAX_LAG ${this.config.monitorMaxLagMessages})`;
    return null;
  }

  private async evaluateAll(now: number): Promise<void> {
    for (const monitor of await this.monitors.enabled()) {
      const window = evaluationWindow(now, monitor.windowSeconds, this.config.monitorSettleMs);
      if (await hasDirtyOverviewBucket(this.ds, monitor.projectId, window.from, window.to)) {
        this.warnIfStale(monitor, now);
        continue;
      }
      await this.evaluate(monitor, window);
      if (this.stale.delete(monitor.id)) this.logger.info({ monitor: monitor.id, projectId: monitor.projectId }, 'monitor evaluated again');
    }
  }

  private warnIfStale(monitor: Monitor, now: number): void {
    const since = Date.parse(monitor.evaluatedAt ?? monitor.createdAt);
    if (now - since < STALE_AFTER_ROUNDS * this.config.monitorIntervalMs || this.stale.has(monitor.id)) return;
    this.stale.add(monitor.id);
    this.logger.warn(
      { monitor: monitor.id, projectId: monitor.projectId, lastEvaluatedAt: monitor.evaluatedAt },
      'monitor not evaluated for a while: stats in its window keep awaiting their recount (late batches?); it keeps its state meanwhile',
    );
  }

  private async evaluate(monitor: Monitor & { orgId: string }, window: { from: Date; to: Date }): Promise<void> {
    const sums = await readWindowSums(this.ds, monitor.projectId, window.from, window.to, monitor.filter);
    const value = monitorValue(monitor.metric, monitor.scoreName, sums);
    const state = monitorStateOf(value, monitor.comparison, monitor.threshold);
    const changed = await this.ds.transaction((m) =>
      new MonitorStore(m).recordEvaluation(monitor, { state, value, windowStart: window.from, windowEnd: window.to }),
    );
    if (!changed) return;
    const details = {
      projectId: monitor.projectId,
      name: monitor.name,
      from: monitor.state,
      to: state,
      value,
      threshold: monitor.threshold,
      comparison: monitor.comparison,
      windowStart: window.from.toISOString(),
      windowEnd: window.to.toISOString(),
    };
    this.logger.info({ monitor: monitor.id, ...details }, 'monitor changed state');
  }
}
