import { Controller, Get, Headers, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { REVALIDATE_ON_USE, ifNoneMatchNames } from '../http/entity-tag';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { PromptTemplatesService } from './prompt-templates.service';

/** SPEC 4.5, 4.6 and CONTRACT "Prompt templates", counted in the key's rate-limit bucket. */
@Controller('api/v1/prompt-templates')
@ApiKeyRoute()
export class PromptTemplatesController {
  constructor(private readonly prompts: PromptTemplatesService) {}

  @Post()
  @HttpCode(201)
  push(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest) {
    return this.prompts.push(principal, req.ip, req.rawBody, req.body);
  }

  /** The reply is sent here, since a 304 is a status the handler chooses. */
  @Get()
  async get(
    @Principal() principal: ApiKeyPrincipal,
    @Query() query: Record<string, unknown>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    const answer = await this.prompts.get(principal.projectId, query);
    if (answer.kind === 'list') return reply.send(answer.page);
    void reply.headers({ ETag: answer.etag, 'Cache-Control': REVALIDATE_ON_USE });
    return ifNoneMatchNames(ifNoneMatch, answer.etag) ? reply.code(304).send() : reply.send(answer.version);
  }
}
