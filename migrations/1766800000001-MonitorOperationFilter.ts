import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A monitor may watch the spans of one operation (issue 26), a dimension of the overview stats since SpanStatsOperation. */
export class MonitorOperationFilter1766800000001 implements MigrationInterface {
  name = 'MonitorOperationFilter1766800000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE monitors ADD COLUMN filter_operation text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE monitors DROP COLUMN filter_operation`);
  }
}
