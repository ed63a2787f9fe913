import type { DataSource, QueryRunner } from 'typeorm';

export type Locked<T> = { locked: true; value: T } | { locked: false };

/**
 * Runs `work` on a connection of its own while it holds the session advisory lock named `key`,
 * for what one process of a fleet does at a time (retention, a rebuild, the scheduled rounds).
 * Resolves `{locked: false}` without running it when another session holds the lock. A session
 * lock, not a transaction's: `work` may run many transactions, on the runner given to it or not.
 */
export async function withAdvisoryLock<T>(ds: DataSource, key: string, work: (runner: QueryRunner) => Promise<T>): Promise<Locked<T>> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    const [{ locked }]: { locked: boolean }[] = await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [key]);
    if (!locked) return { locked: false };
    try {
      return { locked: true, value: await work(runner) };
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  } finally {
    await runner.release();
  }
}
