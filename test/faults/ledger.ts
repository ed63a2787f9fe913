import type { Pool } from 'pg';

/**
 * What a scenario's project holds, counted in rows against the keys the clients know:
 * every acknowledged span present exactly once, every expired one gone. Hundreds of
 * thousands of keys go to a temporary table and Postgres does the matching.
 */

export interface KeySets {
  /** Spans that must be stored exactly once. */
  kept: Iterable<string[]>;
  /** Spans that retention must have deleted. */
  expired?: Iterable<string[]>;
}

export interface RowCounts {
  acknowledged: number;
  /** Acknowledged spans with at least one row. */
  stored: number;
  lost: number;
  /** Rows beyond the first for one key. */
  duplicates: number;
  /** Rows of spans never acknowledged: requests stored whose answer never reached the client. */
  storedUnacknowledged: number;
  /** Expired spans still stored. */
  expiredRemaining: number;
  /** All span rows of the project. */
  rows: number;
}

const KEYS_PER_INSERT = 50_000;

export async function countRows(db: Pool, projectId: string, keys: KeySets): Promise<RowCounts> {
  const client = await db.connect();
  try {
    // No index: one hash join below reads it once. Keys are unique by construction (request numbers).
    await client.query('CREATE TEMP TABLE ledger (key text NOT NULL, expired boolean NOT NULL)');
    const load = async (sets: Iterable<string[]>, expired: boolean) => {
      let chunk: string[] = [];
      const flush = async () => {
        await client.query('INSERT INTO ledger SELECT unnest($1::text[]), $2', [chunk, expired]);
        chunk = [];
      };
      for (const request of sets) {
        chunk.push(...request);
        if (chunk.length >= KEYS_PER_INSERT) await flush();
      }
      if (chunk.length) await flush();
    };
    await load(keys.kept, false);
    await load(keys.expired ?? [], true);
    await client.query('ANALYZE ledger');
    const { rows } = await client.query<Omit<RowCounts, 'lost'>>(
      `SELECT count(*) FILTER (WHERE l.expired = false)::int AS acknowledged,
              count(*) FILTER (WHERE l.expired = false AND s.n IS NOT NULL)::int AS stored,
              coalesce(sum(s.n - 1), 0)::int AS duplicates,
              count(*) FILTER (WHERE l.key IS NULL)::int AS "storedUnacknowledged",
              count(*) FILTER (WHERE l.expired AND s.n IS NOT NULL)::int AS "expiredRemaining",
              coalesce(sum(s.n), 0)::int AS rows
         FROM ledger l
         FULL JOIN (SELECT coalesce(external_id, otel_span_id) AS key, count(*) AS n FROM spans WHERE project_id = $1 GROUP BY 1) s USING (key)`,
      [projectId],
    );
    const counts = rows[0];
    return { ...counts, lost: counts.acknowledged - counts.stored };
  } finally {
    await client.query('DROP TABLE IF EXISTS ledger').catch(() => undefined);
    client.release();
  }
}

/** Span rows of one or several projects: how far a drain has come. */
export async function spanRows(db: Pool, projectIds: string | string[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM spans WHERE project_id = ANY($1::uuid[])', [
    [projectIds].flat(),
  ]);
  return rows[0].n;
}
