import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL, parseNatsServers } from '../../libs/config/src/config';
import { MissingServiceError, ensureNats, ensurePostgres } from '../../tools/local-services';
import { ensureTemplateDatabase } from './template-db';

/**
 * Before any integration or end-to-end test: Postgres and NATS must answer (started here
 * when the defaults are silent). Each test file then makes its own database and streams
 * from `SPANLOG_TEST_ADMIN_DB_URL`, a URL of the server's `postgres` database, its database a
 * copy of the migrated template `SPANLOG_TEST_TEMPLATE_DB` when the apps are built.
 */
export default async function globalSetup(): Promise<void> {
  const say = (line: string) => process.stderr.write(`\nspanlog tests: ${line}\n`);
  try {
    const serverUrl = new URL(await ensurePostgres(process.env.SPANLOG_TEST_ADMIN_DB_URL ?? DEFAULT_DATABASE_URL, say));
    serverUrl.pathname = '/postgres';
    process.env.SPANLOG_TEST_ADMIN_DB_URL = serverUrl.toString();
    const template = await ensureTemplateDatabase(serverUrl.toString());
    if (template) process.env.SPANLOG_TEST_TEMPLATE_DB = template;
    await ensureNats(parseNatsServers(process.env.NATS_URL ?? DEFAULT_NATS_URL).servers, say);
  } catch (err) {
    if (!(err instanceof MissingServiceError)) throw err;
    say(err.message);
    process.exit(1);
  }
}
