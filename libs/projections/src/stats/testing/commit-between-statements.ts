import type { DataSource, EntityManager } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';

/**
 * `ds` whose transactions' statements run as they are, except that `commit` (a recount on
 * another connection) runs right after the first of them; `committed` says whether it did.
 * A reader that takes one snapshot (`inOneSnapshot`) must not see what it committed.
 */
export function commitAfterFirstStatement(ds: DataSource, commit: () => Promise<void>): { ds: DataSource; committed: () => boolean } {
  let committed = false;
  const afterFirst = (m: EntityManager): EntityManager =>
    new Proxy(m, {
      get: (target, key) =>
        key !== 'query'
          ? Reflect.get(target, key)
          : async (...args: Parameters<EntityManager['query']>) => {
              const rows = await target.query(...args);
              if (!committed) {
                committed = true;
                await commit();
              }
              return rows;
            },
    });
  const proxied = new Proxy(ds, {
    get: (target, key) =>
      key !== 'transaction'
        ? Reflect.get(target, key)
        : (isolation: IsolationLevel, work: (m: EntityManager) => Promise<unknown>) =>
            target.transaction(isolation, (m) => work(afterFirst(m))),
  });
  return { ds: proxied, committed: () => committed };
}
