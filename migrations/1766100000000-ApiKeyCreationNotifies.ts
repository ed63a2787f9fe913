import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A new API key notifies `spanlog_api_keys` too, with the payload `api_keys created`: the API
 * keeps the hashes of every unrevoked key in memory (libs/persistence/src/tenancy/known-keys.ts)
 * to tell a valid key from a guess without a query, and reads them again when notified, so a
 * key is known as soon as its creation commits. A creation changes no cached principal, so
 * its own payload lets the listener leave them be. Still one notification per statement.
 */
export class ApiKeyCreationNotifies1766100000000 implements MigrationInterface {
  name = 'ApiKeyCreationNotifies1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION spanlog_notify_api_keys_created() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('spanlog_api_keys', 'api_keys created');
          RETURN NULL;
        END
      $$;
      CREATE TRIGGER api_keys_created AFTER INSERT ON api_keys
        FOR EACH STATEMENT EXECUTE FUNCTION spanlog_notify_api_keys_created();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER api_keys_created ON api_keys;
      DROP FUNCTION spanlog_notify_api_keys_created();
    `);
  }
}
