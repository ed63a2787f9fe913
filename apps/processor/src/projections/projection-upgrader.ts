import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import { NatsResources } from '@app/eventlog';
import { ProjectionCheckpoints } from '@app/persistence';
import { REBUILDABLE_PROJECTIONS, RebuildBusyError, type RebuildableProjection } from '@app/projections';

/** After a failed or busy attempt, when to look again. */
const RETRY_AFTER_MS = 60_000;
/** Progress in the log at most this often. */
const PROGRESS_EVERY_MS = 10_000;

/**
 * DESIGN "Projections": when this code's version of a projection is newer than the one the
 * live tables were built by, rebuild it beside them while they keep serving, then swap (the
 * rebuild records the new version in its swap). One processor does it, under the rebuild's
 * lock; the others keep serving and look again later. Runs in the background: the live
 * projections start at once.
 */
@Injectable()
export class ProjectionUpgrader implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    private readonly checkpoints: ProjectionCheckpoints,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'rebuildWorkers'>,
  ) {}

  onApplicationBootstrap(): void {
    void this.upgradeAll();
  }

  /** A rebuild in progress is left to die with the process: its swap is one transaction, and the next one starts afresh. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async upgradeAll(): Promise<void> {
    let again = false;
    for (const projection of REBUILDABLE_PROJECTIONS) {
      if (this.stopped) return;
      again = (await this.upgrade(projection)) || again;
    }
    if (again && !this.stopped) this.timer = setTimeout(() => void this.upgradeAll(), RETRY_AFTER_MS);
  }

  /** Whether to look again later. */
  private async upgrade(projection: RebuildableProjection): Promise<boolean> {
    try {
      const serving = await this.checkpoints.servingVersion(projection.name);
      if (serving === null) {
        // Nothing recorded: the tables are as this code builds them (a new deployment).
        await this.checkpoints.recordServingVersion(projection.name, projection.version);
        return false;
      }
      if (serving >= projection.version) return false;
      this.logger.info(
        { projection: projection.name, from: serving, to: projection.version },
        'projection is older than this code; rebuilding it while it serves',
      );
      let logged = 0;
      const workers = {
        workers: this.config.rebuildWorkers,
        warn: (message: string) => this.logger.warn({ projection: projection.name }, message),
      };
      const result = await projection.rebuild(
        this.ds,
        this.nats,
        (tick) => {
          if (Date.now() - logged < PROGRESS_EVERY_MS) return;
          logged = Date.now();
          this.logger.info(tick, 'projection rebuild progress');
        },
        workers,
      );
      this.logger.info({ ...result }, 'projection rebuilt and swapped in');
      return false;
    } catch (err) {
      if (err instanceof RebuildBusyError) {
        this.logger.info({ projection: projection.name }, 'another process is rebuilding the projection; looking again later');
      } else if (!this.stopped) {
        this.logger.error(
          { projection: projection.name, err: (err as Error).message },
          'projection rebuild failed; the old version keeps serving; trying again later',
        );
      }
      return true;
    }
  }
}
