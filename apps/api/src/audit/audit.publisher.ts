import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@app/config';
import { type AuditEvent, AUDIT_SCHEMA } from '@app/domain';
import { NatsResources, toNatsHeaders } from '@app/eventlog';

/**
 * Appends security-relevant changes to the AUDIT stream; the processor projects them into
 * the audit log. Awaited, so a change is not reported done before its audit record is durable.
 */
@Injectable()
export class AuditPublisher {
  constructor(
    private readonly nats: NatsResources,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async record(event: Omit<AuditEvent, 'id' | 'at'>): Promise<void> {
    const full: AuditEvent = { ...event, id: randomUUID(), at: new Date().toISOString() };
    const subject = `${this.nats.layout.subjectRoot('audit')}.${event.orgId ?? 'global'}`;
    try {
      await this.nats.js.publish(subject, JSON.stringify(full), { msgID: full.id, headers: toNatsHeaders({ 'Spanlog-Schema': AUDIT_SCHEMA }) });
    } catch (err) {
      // The change itself already happened; losing its audit line must be loud, not fatal.
      this.logger.error({ err: String(err), audit: full }, 'audit event could not be appended');
    }
  }
}
