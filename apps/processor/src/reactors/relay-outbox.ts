import type { DataSource, EntityManager } from 'typeorm';

/** An outbox table that live transactions fill and a relay drains into a stream. */
export interface Outbox<Row> {
  /** Locks up to `limit` rows that are due (SKIP LOCKED, so relays never take the same row at once). */
  take(tx: EntityManager, limit: number): Promise<Row[]>;
  /** Resolves once the stream acknowledged every row's message. */
  publish(rows: Row[]): Promise<void>;
  /** Marks the published rows done (deleted, or their state moved on). */
  settle(tx: EntityManager, rows: Row[]): Promise<void>;
}

/**
 * Moves up to `limit` rows of an outbox: takes them, publishes them and settles them in one
 * transaction holding their locks. A crash between publish and commit publishes them again; the
 * message id, the row's own, makes that harmless. Resolves with how many rows it moved.
 */
export function relayOutbox<Row>(ds: DataSource, outbox: Outbox<Row>, limit: number): Promise<number> {
  return ds.transaction(async (tx) => {
    const rows = await outbox.take(tx, limit);
    if (!rows.length) return 0;
    await outbox.publish(rows);
    await outbox.settle(tx, rows);
    return rows.length;
  });
}
