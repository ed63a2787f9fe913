import { Client } from 'pg';
import type { ApiKeyChanges, PrincipalCache } from '@app/persistence';

/** Notified by the triggers of migrations ApiKeyChanges and ApiKeyCreationNotifies; the payload names the table, for people. */
export const API_KEY_CHANGES_CHANNEL = 'spanlog_api_keys';
/** The payload of a new key (ApiKeyCreationNotifies): it changes no cached principal, only the set of known keys. */
export const API_KEY_CREATED_PAYLOAD = 'api_keys created';

/** Longest wait for the listener's connection to answer before a look-up goes to Postgres instead. */
const CATCH_UP_TIMEOUT_MS = 1_000;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

export interface ApiKeyChangeListenerOptions {
  url: string;
  applicationName: string;
  /** First wait before reconnecting; doubles up to `maxRetryMs`, and starts over once listening. */
  firstRetryMs?: number;
  maxRetryMs?: number;
  onListening?: () => void;
  onLost?: (err: Error | undefined, retryInMs: number) => void;
}

/**
 * Keeps a PrincipalCache current from Postgres notifications, on a connection of its own
 * (a pooled one would hand LISTEN to whichever query borrows it next). The cache serves only
 * between a successful LISTEN and the loss of the connection; meanwhile every look-up goes
 * to Postgres, and reconnecting backs off so a Postgres outage is not hammered.
 */
export class ApiKeyChangeListener implements ApiKeyChanges {
  private client: Client | null = null;
  private retry: NodeJS.Timeout | undefined;
  private retryInMs: number;
  private closed = false;
  private inFlight: Promise<boolean> | null = null;
  private queued: Promise<boolean> | null = null;

  private constructor(
    private readonly cache: PrincipalCache,
    private readonly options: ApiKeyChangeListenerOptions,
  ) {
    this.retryInMs = options.firstRetryMs ?? FIRST_RETRY_MS;
  }

  /** Returns at once: until LISTEN succeeds the cache is bypassed, which is only slower. */
  static start(cache: PrincipalCache, options: ApiKeyChangeListenerOptions): ApiKeyChangeListener {
    const listener = new ApiKeyChangeListener(cache, options);
    void listener.connect();
    return listener;
  }

  /**
   * A notification reaches us some time after the change's commit has been acknowledged, long
   * enough for a client that revoked a key to be served once more from the cache. But a backend
   * sends the notifications it has been signalled before it answers a query, and the signal is
   * sent before the commit is acknowledged: so once a round trip sent now is answered, every
   * change committed before now has been applied to the cache. Callers share round trips: one
   * in flight, and the next one, which everyone arriving meanwhile waits for.
   */
  caughtUp(): Promise<boolean> {
    if (!this.inFlight) {
      this.inFlight = this.roundTrip().finally(() => (this.inFlight = null));
      return this.inFlight;
    }
    this.queued ??= this.inFlight.then(() => {
      this.queued = null;
      return this.caughtUp();
    });
    return this.queued;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.cache.setListening(false);
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    // Keepalive so a connection that died silently is noticed even when no look-up asks.
    const client = new Client({
      connectionString: this.options.url,
      application_name: this.options.applicationName,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
    });
    this.client = client;
    client.on('notification', (n) => (n.payload === API_KEY_CREATED_PAYLOAD ? this.cache.keyCreated() : this.cache.invalidate()));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_CHANGES_CHANNEL}`);
    } catch (err) {
      this.lost(client, err as Error);
      return;
    }
    if (this.client !== client) return;
    this.retryInMs = this.options.firstRetryMs ?? FIRST_RETRY_MS;
    this.cache.setListening(true);
    this.options.onListening?.();
  }

  /** An empty query: the cheapest one Postgres answers, with any pending notifications first. */
  private async roundTrip(): Promise<boolean> {
    const client = this.client;
    if (!client) return false;
    let timer: NodeJS.Timeout | undefined;
    // A connection that stopped answering is as good as lost: look-ups must not queue behind it.
    const silence = new Promise<false>((resolve) => {
      timer = setTimeout(() => {
        this.lost(client, new Error(`no answer within ${CATCH_UP_TIMEOUT_MS} ms`));
        resolve(false);
      }, CATCH_UP_TIMEOUT_MS);
    });
    const answer = client.query('').then(
      () => this.client === client,
      () => false,
    );
    try {
      return await Promise.race([answer, silence]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Once per connection, whichever of its error, end, failed LISTEN or silence comes first. */
  private lost(client: Client, err: Error | undefined): void {
    if (this.client !== client) return;
    this.client = null;
    this.cache.setListening(false);
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.options.onLost?.(err, this.retryInMs);
    this.retry = setTimeout(() => void this.connect(), this.retryInMs);
    this.retryInMs = Math.min(this.retryInMs * 2, this.options.maxRetryMs ?? MAX_RETRY_MS);
  }
}
