import { DEFAULT_DATABASE_URL } from '../../libs/config/src/config';
import { MissingServiceError, ensurePostgres } from '../../tools/local-services';
import { MissingBinaryError, findNatsServer } from '../faults/services';
import { ensureTemplateDatabase } from '../support/template-db';

/**
 * Before the cluster suite: the nats-server binary it runs three of, and the Postgres the
 * stack's database is made on (the shared one, with the migrated template as for e2e tests).
 * It uses no shared NATS.
 */
export default async function globalSetup(): Promise<void> {
  const say = (line: string) => process.stderr.write(`\nspanlog cluster tests: ${line}\n`);
  try {
    findNatsServer();
    const serverUrl = new URL(await ensurePostgres(process.env.SPANLOG_TEST_ADMIN_DB_URL ?? DEFAULT_DATABASE_URL, say));
    serverUrl.pathname = '/postgres';
    process.env.SPANLOG_TEST_ADMIN_DB_URL = serverUrl.toString();
    const template = await ensureTemplateDatabase(serverUrl.toString());
    if (template) process.env.SPANLOG_TEST_TEMPLATE_DB = template;
  } catch (err) {
    if (!(err instanceof MissingServiceError) && !(err instanceof MissingBinaryError)) throw err;
    say(err.message);
    process.exit(1);
  }
}
