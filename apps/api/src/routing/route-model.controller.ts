import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { ApiKeyPrincipal } from '@app/persistence';
import { Principal } from '../auth/api-key.guard';
import { ApiKeyRoute } from '../rate-limit/rate-limit.module';
import { RouteModelService } from './route-model.service';

/** SPEC 4.4: 200 with the chosen model, the reason and every candidate's stats and rank. */
@Controller('api/v1/route-model')
@ApiKeyRoute()
export class RouteModelController {
  constructor(private readonly routing: RouteModelService) {}

  @Post()
  @HttpCode(200)
  route(@Principal() principal: ApiKeyPrincipal, @Req() req: FastifyRequest) {
    return this.routing.route(principal.projectId, req.rawBody, req.body, Date.now());
  }
}
