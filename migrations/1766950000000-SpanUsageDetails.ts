import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A span's usage by type (issue 28): token counts keyed by type (`input`, `output`,
 * `cached_input`, `cache_write`, `reasoning`, or a type the client named), each token in one
 * type. Rows written before have none until the telemetry projection's rebuild to version 4
 * writes them again from the events.
 */
export class SpanUsageDetails1766950000000 implements MigrationInterface {
  name = 'SpanUsageDetails1766950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE spans ADD COLUMN usage_details jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE spans DROP COLUMN usage_details`);
  }
}
