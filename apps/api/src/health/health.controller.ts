import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NatsResources } from '@app/eventlog';

/** SPEC 4.8: no auth, never rate limited; details say which dependency is down. */
@Controller('api/v1/health')
export class HealthController {
  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
  ) {}

  @Get()
  async health() {
    const postgres = await this.ds
      .query('SELECT 1')
      .then(() => 'ok' as const)
      .catch(() => 'unreachable' as const);
    const nats = this.nats.nc.isClosed() ? 'unreachable' : 'ok';
    return { status: 'ok', checks: { postgres, nats } };
  }
}
