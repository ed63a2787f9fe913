import { Controller, Get, Param, Query } from '@nestjs/common';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { VisibilityService } from '../consistency/visibility.service';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { ReadAfter } from '../traces/read-after';
import { TraceGroupsService } from './trace-groups.service';

/** `minSeq` is read-your-writes (CONTRACT, read by ReadAfter), the rest of the query goes to the domain's rules as sent. */
function withoutMinSeq(query: Record<string, unknown>): Record<string, unknown> {
  const { minSeq: _minSeq, ...rest } = query;
  return rest;
}

/** GET /api/v1/sessions, /api/v1/sessions/:id and /api/v1/users: API key, rate limited as the trace reads. */
@Controller('api/v1')
@ApiKeyRoute()
export class TraceGroupsController {
  constructor(
    private readonly groups: TraceGroupsService,
    private readonly visibility: VisibilityService,
  ) {}

  @Get('sessions')
  async sessions(@Principal() principal: ApiKeyPrincipal, @Query() query: Record<string, unknown>, @ReadAfter() after: ReadAfter) {
    await this.visibility.awaitRead(after.minSeq, after.reply);
    return this.groups.listSessions(principal.projectId, withoutMinSeq(query));
  }

  @Get('sessions/:id')
  async session(
    @Principal() principal: ApiKeyPrincipal,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @ReadAfter() after: ReadAfter,
  ) {
    await this.visibility.awaitRead(after.minSeq, after.reply);
    return this.groups.getSession(principal.projectId, id, withoutMinSeq(query));
  }

  @Get('users')
  async users(@Principal() principal: ApiKeyPrincipal, @Query() query: Record<string, unknown>, @ReadAfter() after: ReadAfter) {
    await this.visibility.awaitRead(after.minSeq, after.reply);
    return this.groups.listUsers(principal.projectId, withoutMinSeq(query));
  }
}
