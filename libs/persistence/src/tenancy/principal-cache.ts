import type { ApiKeyPrincipal } from './api-key-lookup';

/** How long a principal is served without asking Postgres: the bound on revocation if a notification is lost. */
export const PRINCIPAL_TTL_MS = 1_000;

/** How long a key that resolved to nothing is refused without asking Postgres again. */
export const UNKNOWN_KEY_TTL_MS = 5_000;

/** Unknown keys remembered at most: each is one an attacker chose, so memory must not follow them. */
export const MAX_UNKNOWN_KEYS = 10_000;

interface Entry {
  principal: ApiKeyPrincipal;
  expiresAt: number;
}

/**
 * Principals of API keys by key hash, kept current by a change listener (ApiKeyChangeListener).
 * Serves nothing while that listener is not connected, so a revocation is never missed for
 * want of a notification. Apart from them, it remembers briefly which keys resolved to
 * nothing, so a client repeating an unknown key costs no query each time: that answer can
 * only turn wrong if a key with that very hash is created, and a key's secret is random and
 * first seen when it is created, so no client can have sent it before.
 * No I/O: the listener and the look-up drive it, the clock is passed in.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  /** Key hashes that resolved to nothing, with when that answer expires. */
  private readonly unknown = new Map<string, number>();
  /** Bumped by every invalidation, so a look-up that raced one is not cached. */
  private generation = 0;
  /** Bumped by every notified change, new keys included: what KnownKeys reads again after. */
  private changes = 0;
  private listening = false;
  private sweepAt = 0;

  constructor(
    private readonly ttlMs = PRINCIPAL_TTL_MS,
    private readonly now: () => number = () => performance.now(),
    private readonly unknownTtlMs = UNKNOWN_KEY_TTL_MS,
    private readonly maxUnknown = MAX_UNKNOWN_KEYS,
  ) {}

  /** Entries exist only while listening: losing the listener clears them and `set` refuses. */
  get(keyHash: string): ApiKeyPrincipal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.principal;
    this.entries.delete(keyHash);
    return undefined;
  }

  /** Taken before asking Postgres; `set` keeps the answer only if nothing was invalidated since. */
  ticket(): number {
    return this.generation;
  }

  set(ticket: number, keyHash: string, principal: ApiKeyPrincipal): void {
    if (!this.listening || ticket !== this.generation) return;
    const now = this.now();
    this.sweep(now);
    this.entries.set(keyHash, { principal, expiresAt: now + this.ttlMs });
  }

  /** Whether this key hash resolved to nothing a moment ago. */
  isUnknown(keyHash: string): boolean {
    const expiresAt = this.unknown.get(keyHash);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.now()) return true;
    this.unknown.delete(keyHash);
    return false;
  }

  /** Kept whether or not the listener is connected: no notification can make an unknown key known. */
  setUnknown(keyHash: string): void {
    const now = this.now();
    if (this.unknown.size >= this.maxUnknown) {
      for (const [hash, expiresAt] of this.unknown) if (expiresAt <= now) this.unknown.delete(hash);
      if (this.unknown.size >= this.maxUnknown) return;
    }
    this.unknown.set(keyHash, now + this.unknownTtlMs);
  }

  /** A change was notified: any entry may be stale, and so may any answer still in flight. */
  invalidate(): void {
    this.entries.clear();
    this.generation++;
    this.changes++;
  }

  /** A new key was notified: no principal changed, but the set of keys did. */
  keyCreated(): void {
    this.changes++;
  }

  /** Moves with every notified change to the keys (and with the listener connecting or not). */
  changesSeen(): number {
    return this.changes;
  }

  /** Whether the listener is connected, so that `changesSeen()` moves with every committed key change. */
  isListening(): boolean {
    return this.listening;
  }

  /** Whether the listener is connected and LISTENing; either way what was cached is dropped. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.invalidate();
  }

  /** Keys that stop being used would otherwise stay in the map for good. */
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + this.ttlMs;
    for (const [keyHash, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(keyHash);
  }
}
