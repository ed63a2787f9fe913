import 'reflect-metadata';
import { setTimeout as sleep } from 'node:timers/promises';
import { guardCheckedOutConnections } from './data-source';
import { useTestDatabase } from './testing/test-database';

describe(guardCheckedOutConnections.name, () => {
  const db = useTestDatabase();

  it('keeps the process up when Postgres ends a connection that is checked out (57P01 on a restart), reports it, and the pool goes on', async () => {
    const seen: Error[] = [];
    guardCheckedOutConnections(db.ds, (err) => seen.push(err));
    const held = db.ds.createQueryRunner();
    await held.connect();
    const [{ pid }] = await held.query('SELECT pg_backend_pid() AS pid');
    // Without a listener on the checked-out client, its 'error' event is uncaught and ends the process (jest reports it).
    await db.ds.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 50 && !seen.length; i++) await sleep(20);
    expect(seen.map((e) => (e as Error & { code?: string }).code)).toEqual(['57P01']);
    await expect(held.query('SELECT 1')).rejects.toThrow();
    await held.release();
    expect(await db.ds.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
