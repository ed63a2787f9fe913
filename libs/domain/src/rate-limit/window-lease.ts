/**
 * Replicas share a rate limit by leasing it: each window of a bucket holds `limit` tokens in
 * a shared counter, a replica takes them in chunks and spends them locally, so the requests
 * accepted in one window across every replica never exceed `limit` and a replica asks the
 * shared counter once per chunk, not once per request (docs/ARCHITECTURE.md "Replicas").
 */

/** Chunks per window at most: a replica asks the shared counter about this often per busy bucket. */
export const RATE_LIMIT_LEASES_PER_WINDOW = 20;

/**
 * Tokens a replica leases at a time: a twentieth of the limit. The tokens of a chunk unused when
 * its window ends are lost, so with N replicas sharing a bucket at its limit, up to N−1 chunks
 * (5 % of the limit each) may go unaccepted; never more than the limit is accepted.
 */
export const leaseSizeOf = (limit: number): number => Math.max(1, Math.ceil(limit / RATE_LIMIT_LEASES_PER_WINDOW));

/** The fixed window a time falls in, the same on every replica whose clock agrees: a number, from the Unix epoch. */
export const windowNumberOf = (nowMs: number, windowMs: number): number => Math.floor(nowMs / windowMs);
