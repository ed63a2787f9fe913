import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where a span's cost comes from (issue 28): `client`, or `price:<definition id>` when the
 * projection computed it from the price table because the client sent none, with the computed
 * cost per usage type. Rows written before have neither until the telemetry projection's
 * rebuild to version 4 writes them again from the events.
 */
export class SpanCostSource1766960000000 implements MigrationInterface {
  name = 'SpanCostSource1766960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE spans ADD COLUMN cost_source text, ADD COLUMN cost_details jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE spans DROP COLUMN cost_source, DROP COLUMN cost_details`);
  }
}
