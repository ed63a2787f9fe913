import { Controller, Get, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccessService } from '../access/access.service';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';
import type { AccessClaims } from '../sessions/auth.service';
import { Session, SessionGuard } from '../sessions/session.guard';
import { TraceExportService } from './trace-export.service';
import { ProjectPathDto, TraceExportQueryDto } from './trace-query.dto';

/**
 * The trace export with a login session (the dashboard's Export button, `spanlog traces
 * export` without a key): the same query and stream as GET /api/v1/traces/export, for a
 * project of the user's organizations. A download cannot go through the dashboard RPC, which
 * answers JSON; it is counted in the client address's rate-limit bucket, as a request
 * without an API key.
 */
@Controller('api/v1/projects/:projectId/traces')
@UseGuards(SessionGuard, RateLimitGuard)
export class ProjectTracesExportController {
  constructor(
    private readonly access: AccessService,
    private readonly exports: TraceExportService,
  ) {}

  @Get('export')
  async export(
    @Session() session: AccessClaims,
    @Param() { projectId }: ProjectPathDto,
    @Query() query: TraceExportQueryDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    await this.access.requireProjectRole({ userId: session.sub, ip: req.ip }, projectId);
    return this.exports.send(reply, projectId, query, req.id);
  }
}
