import type { DataSource } from 'typeorm';
import { type PlanName, hashApiKey } from '@app/domain';
import { KnownKeys } from './known-keys';
import { PrincipalCache } from './principal-cache';

/** What a cached look-up waits for before trusting the cache (the API's ApiKeyChangeListener). */
export interface ApiKeyChanges {
  /** True once every change committed before the call has reached the cache. */
  caughtUp(): Promise<boolean>;
}

/** Who an API key speaks for: resolved on every authenticated request. */
export interface ApiKeyPrincipal {
  apiKeyId: string;
  projectId: string;
  orgId: string;
  plan: PlanName;
  rateLimitPerSecond: number | null;
}

const LAST_USED_RESOLUTION_MS = 60_000;

export class ApiKeyLookup {
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly known: KnownKeys;

  /** Without a listening cache (the default) every look-up asks Postgres. */
  constructor(
    private readonly db: DataSource,
    private readonly cache = new PrincipalCache(),
    private readonly changes: ApiKeyChanges = { caughtUp: async () => false },
  ) {
    this.known = new KnownKeys(db, cache);
  }

  /** The key's principal, or null when unknown or revoked. Looked up by hash only. */
  async find(secret: string): Promise<ApiKeyPrincipal | null> {
    const keyHash = hashApiKey(secret);
    if (this.cache.isUnknown(keyHash)) return null;
    const principal = (await this.cached(keyHash)) ?? (await this.query(keyHash));
    if (principal) this.touch(principal.apiKeyId);
    return principal;
  }

  /**
   * Whether this may be an unrevoked key, without a query per call (KnownKeys): what the API
   * asks before looking up a key from an address refused for sending unknown ones. A key
   * created before this call is known once the listener has caught up with its commit.
   */
  async mayExist(secret: string): Promise<boolean> {
    const keyHash = hashApiKey(secret);
    if (this.cache.isUnknown(keyHash)) return false;
    if (this.known.has(keyHash)) return true;
    await this.changes.caughtUp();
    return this.known.mayExist(keyHash);
  }

  /** From the cache, but only once it holds every change committed before this request arrived. */
  private async cached(keyHash: string): Promise<ApiKeyPrincipal | undefined> {
    if (!this.cache.get(keyHash)) return undefined;
    return (await this.changes.caughtUp()) ? this.cache.get(keyHash) : undefined;
  }

  private async query(keyHash: string): Promise<ApiKeyPrincipal | null> {
    const ticket = this.cache.ticket();
    const rows: ApiKeyPrincipal[] = await this.db.query(
      `SELECT k.id AS "apiKeyId", k.project_id AS "projectId", p.org_id AS "orgId", o.plan, o.rate_limit_per_second AS "rateLimitPerSecond"
         FROM api_keys k JOIN projects p ON p.id = k.project_id JOIN organizations o ON o.id = p.org_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    const principal = rows[0] ?? null;
    // Frozen: one cached object is handed to every request with this key.
    if (principal) this.cache.set(ticket, keyHash, Object.freeze(principal));
    else this.cache.setUnknown(keyHash);
    return principal;
  }

  /** last_used_at at minute resolution, written off the request path. */
  private touch(apiKeyId: string): void {
    const now = Date.now();
    if (now - (this.lastUsedWritten.get(apiKeyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWritten.set(apiKeyId, now);
    this.db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [apiKeyId]).catch(() => {
      this.lastUsedWritten.delete(apiKeyId);
    });
  }
}
