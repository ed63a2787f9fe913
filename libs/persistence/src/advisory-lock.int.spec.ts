import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { withAdvisoryLock } from './advisory-lock';
import { useTestDatabase } from './testing/test-database';

describe(withAdvisoryLock.name, () => {
  const db = useTestDatabase();

  it('runs one holder at a time, refuses the others without running them, and frees the lock after', async () => {
    const key = `test.${randomUUID()}`;
    let release!: () => void;
    let entered!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const inside = new Promise<void>((r) => (entered = r));
    const first = withAdvisoryLock(db.ds, key, async () => {
      entered();
      await held;
      return 'first';
    });
    await inside;
    let ranSecond = false;
    expect(await withAdvisoryLock(db.ds, key, async () => (ranSecond = true))).toEqual({ locked: false });
    expect(ranSecond).toBe(false);
    release();
    expect(await first).toEqual({ locked: true, value: 'first' });
    expect(await withAdvisoryLock(db.ds, key, async () => 'again')).toEqual({ locked: true, value: 'again' });
  });

  it('frees the lock and the connection when the work fails', async () => {
    const key = `test.${randomUUID()}`;
    await expect(withAdvisoryLock(db.ds, key, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withAdvisoryLock(db.ds, key, async () => 1)).toEqual({ locked: true, value: 1 });
  });
});
