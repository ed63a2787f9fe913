/**
 * The browser's session: an access token kept in memory and refreshed before it expires, and
 * the rotating refresh token in sessionStorage (per tab: it survives a reload, is not shared
 * between tabs, so two tabs never race to rotate the same token into reuse detection, and
 * it is gone when the tab closes). Plain TypeScript, no DOM: the unit tests run it in node.
 */

export interface Session {
  accessToken: string;
  refreshToken: string;
  /** Unix seconds (SPEC 2.5 `expires_at`). */
  expiresAt: number;
  user: { id: string; email: string };
}

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export type SessionEvent = 'signed-in' | 'refreshed' | 'expired' | 'signed-out';

/** Refresh this long before the access token's expiry, so a request never leaves with a dead one. */
export const REFRESH_MARGIN_SECONDS = 30;
const STORAGE_KEY = 'spanlog.refresh';

export class LoginError extends Error {}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_at: number;
  user?: { id: string; email: string };
}

function isTokenAnswer(value: unknown): value is TokenAnswer {
  const v = value as Partial<TokenAnswer> | null;
  return !!v && typeof v.access_token === 'string' && typeof v.refresh_token === 'string' && typeof v.expires_at === 'number';
}

async function envelope(res: Response): Promise<{ data: unknown; message: string | null }> {
  const body = (await res.json().catch(() => null)) as { data?: unknown; error?: { message?: string } | null } | null;
  return { data: body?.data ?? null, message: body?.error?.message ?? (res.ok ? null : `the server answered ${res.status}`) };
}

export class SessionStore {
  private session: Session | null = null;
  private refreshing: Promise<boolean> | null = null;
  private readonly listeners = new Set<(event: SessionEvent) => void>();

  constructor(
    private readonly storage: KeyValueStorage,
    private readonly fetchFn: Fetch,
    private readonly nowSeconds: () => number = () => Date.now() / 1000,
  ) {}

  get current(): Session | null {
    return this.session;
  }

  /** Whether a refresh token from an earlier page load may restore the session. */
  get resumable(): boolean {
    return this.storage.getItem(STORAGE_KEY) !== null;
  }

  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async login(email: string, password: string): Promise<Session> {
    const res = await this.fetchFn('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const { data, message } = await envelope(res);
    if (!res.ok || !isTokenAnswer(data) || !data.user) throw new LoginError(message ?? 'the login answer could not be read');
    return this.keep(data, data.user, 'signed-in');
  }

  /** A valid access token, refreshed first when it is about to expire; null once the session is gone. */
  async accessToken(): Promise<string | null> {
    if (!this.session && !this.resumable) return null;
    if (!this.session || this.session.expiresAt - this.nowSeconds() < REFRESH_MARGIN_SECONDS) {
      if (!(await this.refresh())) return null;
    }
    return this.session?.accessToken ?? null;
  }

  /**
   * Trades the refresh token for a new pair (rotation: the old one is spent). Concurrent
   * callers share one request: sending the same token twice would look like reuse to the
   * server, which then ends the whole session.
   */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.rotate().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  async logout(): Promise<void> {
    const token = this.session?.accessToken;
    this.clear('signed-out');
    if (token)
      await this.fetchFn('/api/v1/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
  }

  /** The server refused the session (a 401 after a refresh): back to the login page. */
  expire(): void {
    this.clear('expired');
  }

  private async rotate(): Promise<boolean> {
    const refreshToken = this.session?.refreshToken ?? this.storage.getItem(STORAGE_KEY);
    if (!refreshToken) return false;
    let res: Response;
    try {
      res = await this.fetchFn('/api/v1/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: refreshToken }),
      });
    } catch {
      // Offline is not an expired session: keep the tokens, let the caller's request fail.
      return false;
    }
    const { data } = await envelope(res);
    // SPEC 4.10: the same shape as login's, user included.
    if (!res.ok || !isTokenAnswer(data) || !data.user) {
      if (res.status === 401 || res.status === 400) this.expire();
      return false;
    }
    this.keep(data, data.user, 'refreshed');
    return true;
  }

  private keep(answer: TokenAnswer, user: { id: string; email: string }, event: SessionEvent): Session {
    this.session = { accessToken: answer.access_token, refreshToken: answer.refresh_token, expiresAt: answer.expires_at, user };
    this.storage.setItem(STORAGE_KEY, answer.refresh_token);
    this.emit(event);
    return this.session;
  }

  private clear(event: SessionEvent): void {
    const had = this.session !== null || this.resumable;
    this.session = null;
    this.storage.removeItem(STORAGE_KEY);
    if (had) this.emit(event);
  }

  private emit(event: SessionEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
