import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NatsResources } from '@app/eventlog';
import { ProjectionCheckpoints, type ProjectionPosition, isReachable, replicaLagSeconds } from '@app/persistence';
import { telemetryPosition } from '@app/projections';
import { READ_DB } from '../infrastructure/read-db';

/** How far the read replica is behind the primary (null where it could not be read). */
export interface ReadReplicaLag {
  status: 'ok' | 'unreachable';
  /** Age of the last transaction the replica replayed, 0 when it replayed all it received. */
  lagSeconds: number | null;
  /** Telemetry messages the primary has applied and the replica does not show yet: what a read with minSeq may wait for. */
  lagMessages: number | null;
}

/** The read replica's lag, for health and the metrics; absent (`configured` false) when reads go to the primary. */
@Injectable()
export class ReadReplicaMonitor {
  private readonly position: ProjectionPosition;

  constructor(
    private readonly primary: DataSource,
    @Inject(READ_DB) private readonly replica: DataSource,
    nats: NatsResources,
  ) {
    this.position = telemetryPosition(nats);
  }

  get configured(): boolean {
    return this.replica !== this.primary;
  }

  async lag(): Promise<ReadReplicaLag> {
    if (!(await isReachable(this.replica))) return { status: 'unreachable', lagSeconds: null, lagMessages: null };
    const [lagSeconds, lagMessages] = await Promise.all([
      replicaLagSeconds(this.replica).catch(() => null),
      this.watermarkGap().catch(() => null),
    ]);
    return { status: 'ok', lagSeconds, lagMessages };
  }

  private async watermarkGap(): Promise<number> {
    // The replica's first: read after it, the primary's is at least as new, so the gap is never negative by a race.
    const replica = await new ProjectionCheckpoints(this.replica).appliedThrough(this.position);
    const primary = await new ProjectionCheckpoints(this.primary).appliedThrough(this.position);
    return Math.max(0, primary - replica);
  }
}
