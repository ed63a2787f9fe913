import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A monitor's state changes wait for their audit event in an outbox of their own instead of in
 * the history (`monitor_history.audited_at`, migration MonitorAuditOutbox): history rows go with
 * their monitor (ON DELETE CASCADE), so a change not yet audited when its monitor or project was
 * deleted was never audited. The outbox row, written with the history row, holds the whole event
 * and no foreign key, and is deleted once AUDIT has it. Changes waiting now move to it.
 */
export class StateChangeAuditOutbox1765000000004 implements MigrationInterface {
  name = 'StateChangeAuditOutbox1765000000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE monitor_audit_outbox (
        history_id bigint PRIMARY KEY,
        org_id uuid NOT NULL,
        project_id uuid NOT NULL,
        monitor_id uuid NOT NULL,
        name text NOT NULL,
        previous_state text,
        state text NOT NULL,
        value double precision,
        threshold double precision NOT NULL,
        comparison text NOT NULL,
        window_start timestamptz NOT NULL,
        window_end timestamptz NOT NULL,
        at timestamptz NOT NULL
      )
    `);
    await q.query(`
      INSERT INTO monitor_audit_outbox
      SELECT h.id, p.org_id, m.project_id, m.id, m.name, h.previous_state, h.state, h.value, h.threshold, h.comparison, h.window_start, h.window_end, h.at
        FROM monitor_history h JOIN monitors m ON m.id = h.monitor_id JOIN projects p ON p.id = m.project_id
       WHERE h.audited_at IS NULL
    `);
    await q.query(`ALTER TABLE monitor_history DROP COLUMN audited_at`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE monitor_history ADD COLUMN audited_at timestamptz`);
    await q.query(
      `UPDATE monitor_history h SET audited_at = h.at WHERE NOT EXISTS (SELECT 1 FROM monitor_audit_outbox o WHERE o.history_id = h.id)`,
    );
    await q.query(`CREATE INDEX monitor_history_unaudited_idx ON monitor_history (id) WHERE audited_at IS NULL`);
    await q.query(`DROP TABLE monitor_audit_outbox`);
  }
}
