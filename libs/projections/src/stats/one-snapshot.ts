import type { DataSource, EntityManager } from 'typeorm';

/**
 * A stats reader's statements in one snapshot. One recount writes a bucket's tables together,
 * and each statement alone takes its own snapshot: a recount committing between two of them
 * showed a bucket's trace and none of its spans.
 */
export const inOneSnapshot = <T>(ds: DataSource, read: (db: EntityManager) => Promise<T>): Promise<T> =>
  ds.transaction('REPEATABLE READ', read);
