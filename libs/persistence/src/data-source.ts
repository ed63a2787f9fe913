import { type Pool, type PoolClient, types } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '@app/migrations';

// bigint columns (token counts, counts) stay far below 2^53: read them as numbers.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
}

export function createDataSource({ url, poolSize = 10, applicationName = 'spanlog' }: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    applicationName,
    // Every statement without JIT and without parallel workers: Spanlog's statements are short
    // and bounded by indexes. The planner's estimates of its range joins, histograms and span sums
    // passed `jit_above_cost` again and again, compiling taking longer than the statement (70 ms
    // to 2.4 s), and a trace-list page of 51 traces waited 40–60 ms for two workers to start,
    // where it takes 2 ms alone (docs/BENCHMARKS.md, "One machine's ceiling").
    extra: { max: poolSize, connectionTimeoutMillis: 5_000, options: '-c jit=off -c max_parallel_workers_per_gather=0' },
  });
}

/**
 * Gives every pooled connection an 'error' listener for the time it is checked out. The pool
 * listens only to idle ones, so Postgres ending a connection a transaction, a held advisory
 * lock or a LISTEN had checked out (57P01 when it restarts) raised an uncaught 'error' and ended
 * the process; the query in flight fails as it would anyway, and the pool replaces the client.
 */
export function guardCheckedOutConnections(dataSource: DataSource, onError: (err: Error) => void): void {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const guarded = new WeakSet<PoolClient>();
  pool.on('acquire', (client) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', onError);
  });
}

export class SchemaBehindError extends Error {}

/** Replicas never migrate; they refuse to run on a schema older than their code. */
export async function assertSchemaCurrent(dataSource: DataSource): Promise<void> {
  if (await dataSource.showMigrations()) {
    throw new SchemaBehindError('the database schema is behind this version: run `npm run migrate` first');
  }
}

/** Whether Postgres answers now: consumers must not count an outage against a message. */
export const isReachable = (dataSource: DataSource): Promise<boolean> =>
  dataSource.query('SELECT 1').then(
    () => true,
    () => false,
  );

/**
 * An app's data source, connected, on a schema its code knows; one clear error otherwise.
 * `onConnectionError` hears of connections Postgres ended while they were checked out.
 */
export async function openDataSource(options: DataSourceOptions, onConnectionError: (err: Error) => void): Promise<DataSource> {
  const ds = createDataSource(options);
  try {
    await ds.initialize();
  } catch (err) {
    throw new Error(`Postgres is not reachable at ${new URL(options.url).host}: ${(err as Error).message}`);
  }
  guardCheckedOutConnections(ds, onConnectionError);
  await assertSchemaCurrent(ds);
  return ds;
}
