import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A span's `operation` (issue 26): what it does in the OTel GenAI operation names (`chat`,
 * `execute_tool`, `invoke_agent`…), beside SPEC's `type`. Rows written before have none until
 * the telemetry projection's rebuild to version 3 writes them again from the events.
 */
export class SpanOperation1766600000000 implements MigrationInterface {
  name = 'SpanOperation1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE spans ADD COLUMN operation text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE spans DROP COLUMN operation`);
  }
}
