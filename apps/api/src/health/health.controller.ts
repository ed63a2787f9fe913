import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NatsResources } from '@app/eventlog';
import { isReachable } from '@app/persistence';
import { STREAM_PROJECTION_LAGS } from '@app/projections';
import { ReadReplicaMonitor } from '../consistency/read-replica';

/**
 * SPEC 4.8: no auth, never rate limited; details say which dependency is down and how far each
 * stream projection is behind. Model stats' marked buckets are left to the metrics: counting
 * them reads two tables, which a load balancer's every probe should not. With a read replica
 * (DATABASE_READ_URL), `readReplica` says whether it answers and how far behind it is.
 */
@Controller('api/v1/health')
export class HealthController {
  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    private readonly replica: ReadReplicaMonitor,
  ) {}

  @Get()
  async health() {
    const postgres = (await isReachable(this.ds)) ? 'ok' : 'unreachable';
    const nats = this.nats.reachable ? 'ok' : 'unreachable';
    const reachable = postgres === 'ok' && nats === 'ok';
    const lags = await Promise.all(
      STREAM_PROJECTION_LAGS.map(
        async ({ projection, lag }) => [projection, { lag: reachable ? await lag(this.ds, this.nats).catch(() => null) : null }] as const,
      ),
    );
    const readReplica = this.replica.configured ? { readReplica: await this.replica.lag() } : {};
    return { status: 'ok', checks: { postgres, nats }, projections: Object.fromEntries(lags), ...readReplica };
  }
}
