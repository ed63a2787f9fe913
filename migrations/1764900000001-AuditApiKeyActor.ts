import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Changes made with an API key (prompt templates) are audited with the key as their actor. */
export class AuditApiKeyActor1764900000001 implements MigrationInterface {
  name = 'AuditApiKeyActor1764900000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE audit_log ADD COLUMN actor_api_key_id uuid');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE audit_log DROP COLUMN actor_api_key_id');
  }
}
