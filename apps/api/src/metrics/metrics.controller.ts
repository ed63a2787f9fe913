import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Registry } from 'prom-client';
import { scrape } from '@app/metrics';
import { METRICS_PATH } from './request-metrics';

/**
 * Prometheus scrapes here. No API key and no rate limit, as a scraper has neither: like the
 * health check it tells nothing about any tenant, but it belongs on an internal network.
 */
@Controller()
export class MetricsController {
  constructor(private readonly registry: Registry) {}

  @Get(METRICS_PATH)
  async metrics(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { contentType, body } = await scrape(this.registry);
    void reply.header('content-type', contentType);
    return body;
  }
}
