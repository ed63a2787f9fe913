import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NatsResources } from '@app/eventlog';
import { isReachable } from '@app/persistence';

/** SPEC 4.8: no auth, never rate limited; details say which dependency is down. */
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
    return { status: 'ok', checks: { postgres, nats } };
  }
}
