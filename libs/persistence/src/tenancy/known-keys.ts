import type { DataSource } from 'typeorm';
import type { PrincipalCache } from './principal-cache';

/** Hex digits of a key's hash kept per key: 64 bits, so a guessed key matches one by chance about never. */
const HASH_PREFIX_LENGTH = 16;

/** Without a listener no notification says when keys change: the set is read again at most this often. */
export const UNLISTENED_RELOAD_MS = 1_000;

/**
 * The hashes (their first 64 bits) of every unrevoked API key, in memory, so that an address
 * refused for sending unknown keys can still have a valid key told apart from a guess with no
 * query per request. Read whole from Postgres when first needed and again after the key
 * change listener saw a change (`changesSeen()` moved), or, while it is not
 * listening, at most once a second: what a flood of guesses can make Postgres do is bounded
 * by how often keys change, never by how many guesses arrive.
 */
export class KnownKeys {
  private prefixes = new Set<string>();
  private loadedGeneration: number | null = null;
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly db: DataSource,
    private readonly cache: PrincipalCache,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether an unrevoked key had this hash at the last read; a revoked one is refused by the look-up that follows. */
  has(keyHash: string): boolean {
    return this.prefixes.has(keyHash.slice(0, HASH_PREFIX_LENGTH));
  }

  /** As `has`, after reading the set again if a change was notified since (or, unlistened, a second passed). */
  async mayExist(keyHash: string): Promise<boolean> {
    // A read begun before the latest change does not hold it: one more read then, never a loop.
    for (let reads = 0; reads < 2 && this.stale(); reads++) await this.reload();
    return this.has(keyHash);
  }

  private stale(): boolean {
    if (this.loadedGeneration !== this.cache.changesSeen()) return true;
    return !this.cache.isListening() && this.now() - this.loadedAt >= UNLISTENED_RELOAD_MS;
  }

  /** One read at a time, shared by everyone waiting for it. */
  private reload(): Promise<void> {
    this.loading ??= this.read().finally(() => (this.loading = null));
    return this.loading;
  }

  private async read(): Promise<void> {
    const generation = this.cache.changesSeen();
    const startedAt = this.now();
    const rows: { prefix: string }[] = await this.db.query(
      `SELECT left(key_hash, ${HASH_PREFIX_LENGTH}) AS prefix FROM api_keys WHERE revoked_at IS NULL`,
    );
    this.prefixes = new Set(rows.map((r) => r.prefix));
    this.loadedGeneration = generation;
    this.loadedAt = startedAt;
  }
}
