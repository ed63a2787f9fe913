import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The API caches API key principals (libs/persistence/src/tenancy/principal-cache.ts) and
 * drops them all on any notification on `spanlog_api_keys`: every change to what a principal
 * holds notifies, once per statement, on commit. The payload names the table, for people
 * watching the channel. Writing `last_used_at` changes no principal and does not notify.
 * Statement triggers: revoking every key of a project is one notification, not one per key.
 */
export class ApiKeyChanges1764200000000 implements MigrationInterface {
  name = 'ApiKeyChanges1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION spanlog_notify_api_keys() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('spanlog_api_keys', TG_TABLE_NAME);
          RETURN NULL;
        END
      $$;
      CREATE TRIGGER api_keys_changed AFTER UPDATE OF key_hash, project_id, revoked_at OR DELETE OR TRUNCATE ON api_keys
        FOR EACH STATEMENT EXECUTE FUNCTION spanlog_notify_api_keys();
      CREATE TRIGGER projects_changed AFTER UPDATE OF org_id OR DELETE OR TRUNCATE ON projects
        FOR EACH STATEMENT EXECUTE FUNCTION spanlog_notify_api_keys();
      CREATE TRIGGER organizations_changed AFTER UPDATE OF plan, rate_limit_per_second OR DELETE OR TRUNCATE ON organizations
        FOR EACH STATEMENT EXECUTE FUNCTION spanlog_notify_api_keys();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER organizations_changed ON organizations;
      DROP TRIGGER projects_changed ON projects;
      DROP TRIGGER api_keys_changed ON api_keys;
      DROP FUNCTION spanlog_notify_api_keys();
    `);
  }
}
