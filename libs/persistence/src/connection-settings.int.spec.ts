import 'reflect-metadata';
import { createDataSource } from './data-source';
import { useTestDatabase } from './testing/test-database';

describe(createDataSource.name, () => {
  const db = useTestDatabase();

  it('opens every pooled connection without JIT and without parallel workers, whatever the server defaults', async () => {
    // Two connections at once: the settings are the connection's own, not a session's SET on one client.
    const runners = [db.ds.createQueryRunner(), db.ds.createQueryRunner()];
    for (const runner of runners) {
      await runner.connect();
      expect(
        await runner.query('SELECT current_setting($1) AS jit, current_setting($2) AS workers', ['jit', 'max_parallel_workers_per_gather']),
      ).toEqual([{ jit: 'off', workers: '0' }]);
    }
    for (const runner of runners) await runner.release();
  });
});
