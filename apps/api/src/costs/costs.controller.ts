import { Controller, Get, Query } from '@nestjs/common';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { CostsService } from './costs.service';

/** GET /api/v1/costs/unpriced: API key, rate limited as the other project reads. */
@Controller('api/v1/costs')
@ApiKeyRoute()
export class CostsController {
  constructor(private readonly costs: CostsService) {}

  @Get('unpriced')
  unpriced(@Principal() principal: ApiKeyPrincipal, @Query() query: Record<string, unknown>) {
    return this.costs.unpriced(principal.projectId, query);
  }
}
