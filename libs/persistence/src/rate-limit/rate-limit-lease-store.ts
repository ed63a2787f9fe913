import type { DataSource } from 'typeorm';

/** Windows this old are forgotten: a replica whose clock lags by less still finds its window's row. */
const KEEP_MS = 60_000;

/**
 * The shared counter of rate-limit tokens (WindowLeases in the API): one row per bucket with
 * the window it counts and the tokens granted in it, in an unlogged table (losing it in a crash
 * only forgets a second's counts). One statement grants a chunk atomically, and grants nothing
 * to a replica still asking for a window the row has moved past.
 */
export class RateLimitLeaseStore {
  constructor(private readonly db: DataSource) {}

  async lease(bucket: string, window: number, windowMs: number, want: number, limit: number): Promise<number> {
    // The SET list reads the row as it was, so last_grant is the grant made by this statement.
    const rows: { grant: number }[] = await this.db.query(
      `INSERT INTO rate_limit_leases AS l (bucket, window_no, granted, last_grant, expires_ms)
         VALUES ($1, $2, LEAST($3::int, $4::int), LEAST($3::int, $4::int), ($2::bigint + 1) * $5::bigint)
       ON CONFLICT (bucket) DO UPDATE SET
         granted = CASE WHEN l.window_no = $2 THEN l.granted + LEAST($3::int, GREATEST(0, $4::int - l.granted)) ELSE LEAST($3::int, $4::int) END,
         last_grant = CASE WHEN l.window_no = $2 THEN LEAST($3::int, GREATEST(0, $4::int - l.granted)) ELSE LEAST($3::int, $4::int) END,
         window_no = $2,
         expires_ms = ($2::bigint + 1) * $5::bigint
       WHERE l.window_no <= $2
       RETURNING last_grant AS "grant"`,
      [bucket, window, want, limit, windowMs],
    );
    return rows.length ? rows[0].grant : 0;
  }

  /** Rows of buckets idle for a while; returns how many went. */
  async sweep(nowMs: number): Promise<number> {
    const rows: unknown[] = await this.db.query(`DELETE FROM rate_limit_leases WHERE expires_ms < $1 RETURNING 1`, [nowMs - KEEP_MS]);
    return rows.length;
  }
}
