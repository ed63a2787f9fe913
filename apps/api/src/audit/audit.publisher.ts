import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@app/config';
import { type AuditRecord, NatsResources, appendAuditEvent } from '@app/eventlog';

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

  async record(record: AuditRecord): Promise<void> {
    try {
      await appendAuditEvent(this.nats.js, this.nats.layout, record);
    } catch (err) {
      // The change itself already happened; losing its audit line must be loud, not fatal.
      this.logger.error({ err: String(err), audit: record }, 'audit event could not be appended');
    }
  }
}
