import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { validationError } from '@app/domain';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { VisibilityService } from '../consistency/visibility.service';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { MIN_SEQ_HEADER, VISIBLE_SEQ_HEADER } from '../traces/traces.controller';
import { TraceGroupsService } from './trace-groups.service';

/** `minSeq` is read-your-writes (CONTRACT), the rest of the query goes to the domain's rules as sent. */
function split(query: Record<string, unknown>): { minSeq: unknown; rest: Record<string, unknown> } {
  const { minSeq, ...rest } = query;
  return { minSeq, rest };
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
  async sessions(@Principal() principal: ApiKeyPrincipal, @Query() query: Record<string, unknown>, @Headers(MIN_SEQ_HEADER) header: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    const { minSeq, rest } = split(query);
    await this.awaitVisible(minSeq ?? header, reply);
    return this.groups.listSessions(principal.projectId, rest);
  }

  @Get('sessions/:id')
  async session(
    @Principal() principal: ApiKeyPrincipal,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Headers(MIN_SEQ_HEADER) header: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { minSeq, rest } = split(query);
    await this.awaitVisible(minSeq ?? header, reply);
    return this.groups.getSession(principal.projectId, id, rest);
  }

  @Get('users')
  async users(@Principal() principal: ApiKeyPrincipal, @Query() query: Record<string, unknown>, @Headers(MIN_SEQ_HEADER) header: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    const { minSeq, rest } = split(query);
    await this.awaitVisible(minSeq ?? header, reply);
    return this.groups.listUsers(principal.projectId, rest);
  }

  private async awaitVisible(raw: unknown, reply: FastifyReply): Promise<void> {
    if (raw !== undefined && typeof raw !== 'string') throw validationError('minSeq: must be a string');
    const visible = await this.visibility.waitFor(this.visibility.parseToken(raw));
    void reply.header(VISIBLE_SEQ_HEADER, visible);
  }
}
