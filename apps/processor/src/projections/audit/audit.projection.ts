import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '@app/config';
import { type AuditEvent, parseAuditEvent, sanitizeJson } from '@app/domain';
import { CONSUMERS, NatsResources, type PullConsumerRunner, jsonMessage, projectionRunner } from '@app/eventlog';
import { isReachable } from '@app/persistence';

/** Projects the AUDIT stream into the audit_log table; ids make a redelivery a no-op. */
@Injectable()
export class AuditProjection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private runner: PullConsumerRunner<AuditEvent> | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runner = projectionRunner<AuditEvent>(this.nats, {
      stream: 'audit',
      consumer: CONSUMERS.auditProjector,
      logger: this.logger,
      decode: jsonMessage((value) => sanitizeJson(parseAuditEvent(value))),
      apply: (events) => this.apply(events),
      isHealthy: () => isReachable(this.ds),
    });
    await this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }

  private async apply(events: AuditEvent[]): Promise<void> {
    await this.ds.query(
      `INSERT INTO audit_log (id, org_id, actor_user_id, actor_api_key_id, action, target, details, ip, created_at)
       SELECT id, org_id, actor_user_id, actor_api_key_id, action, target, details, ip, created_at
         FROM jsonb_to_recordset($1::jsonb) AS r (id uuid, org_id uuid, actor_user_id uuid, actor_api_key_id uuid, action text, target text, details jsonb, ip text, created_at timestamptz)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(events.map((e) => ({ id: e.id, org_id: e.orgId, actor_user_id: e.actorUserId, actor_api_key_id: e.actorApiKeyId ?? null, action: e.action, target: e.target, details: e.details, ip: e.ip, created_at: e.at })))],
    );
  }
}
