import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who made each API key, so that removing a member can revoke the keys they made
 * (`member.remove {revokeKeys: true}`). Keys made before this are nobody's (NULL) and stay.
 */
export class ApiKeyCreator1764720000000 implements MigrationInterface {
  name = 'ApiKeyCreator1764720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys ADD COLUMN created_by uuid REFERENCES users (id) ON DELETE SET NULL;
      CREATE INDEX api_keys_created_by_idx ON api_keys (created_by) WHERE created_by IS NOT NULL AND revoked_at IS NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys DROP COLUMN created_by');
  }
}
