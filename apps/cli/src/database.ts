import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { createDataSource, guardCheckedOutConnections } from '@app/persistence';
import { CliError } from './output';

/** Opens the operator's database from DATABASE_URL, runs `work`, and always closes it. */
export async function withDatabase<T>(work: (ds: DataSource) => Promise<T>): Promise<T> {
  const { databaseUrl } = loadConfig();
  const ds = createDataSource({ url: databaseUrl, poolSize: 2, applicationName: 'spanlog-cli' });
  try {
    await ds.initialize();
  } catch (err) {
    throw new CliError(`cannot connect to Postgres at ${new URL(databaseUrl).host}: ${(err as Error).message}`);
  }
  // The command's own query then fails with the reason, instead of the process dying on an uncaught event.
  guardCheckedOutConnections(ds, () => undefined);
  try {
    return await work(ds);
  } finally {
    await ds.destroy();
  }
}
