import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NatsResources } from '@app/eventlog';
import { isReachable } from '@app/persistence';
import { projectionLag, telemetryPosition } from '@app/projections';

/** SPEC 4.8: no auth, never rate limited; details say which dependency is down and how far projection is behind. */
@Controller('api/v1/health')
export class HealthController {
  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
  ) {}

  @Get()
  async health() {
    const postgres = (await isReachable(this.ds)) ? 'ok' : 'unreachable';
    const nats = this.nats.reachable ? 'ok' : 'unreachable';
    return { status: 'ok', checks: { postgres, nats }, projections: { telemetry: await this.telemetryLag(postgres === 'ok' && nats === 'ok') } };
  }

  /** Stored messages not yet applied (or removed and not yet passed): counted from what the projection recorded, not from acks. */
  private async telemetryLag(reachable: boolean): Promise<{ lag: number | null }> {
    if (!reachable) return { lag: null };
    try {
      return { lag: await projectionLag(this.ds, this.nats, 'ingest', telemetryPosition(this.nats)) };
    } catch {
      return { lag: null };
    }
  }
}
