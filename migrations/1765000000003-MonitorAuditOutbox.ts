import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A monitor's state changes are audited from their history rows (an outbox): the row is written
 * with the change, and the processor publishes it to AUDIT and sets `audited_at`, trying again
 * until AUDIT has it, so no change goes unaudited when NATS is briefly unreachable. Rows from
 * before were audited when they were written.
 */
export class MonitorAuditOutbox1765000000003 implements MigrationInterface {
  name = 'MonitorAuditOutbox1765000000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE monitor_history ADD COLUMN audited_at timestamptz`);
    await q.query(`UPDATE monitor_history SET audited_at = at`);
    await q.query(`CREATE INDEX monitor_history_unaudited_idx ON monitor_history (id) WHERE audited_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE monitor_history DROP COLUMN audited_at`);
  }
}
