import { ApiClient, ApiError, DEFAULT_API_URL, sendToApi, withBearer } from './api-client';
import { CliError } from './output';
import { type Rpc, createRpc } from './rpc-client';
import { type StoredSession, readSession, writeSession } from './session-file';

/** The stored session is gone for good on the server (logged out, revoked, expired). */
export class SessionEndedError extends CliError {
  constructor() {
    super('the session has ended; run spanlog login again');
  }
}

/** `--api` when given, else the API of the stored session, else the local default. */
export const apiUrl = (option: string | undefined): string => option ?? readSession()?.api ?? DEFAULT_API_URL;

/**
 * The logged-in user's access to the API. An access token lives minutes, so a 401 is
 * answered by one refresh (saved at once, since the old refresh token is now spent) and
 * one retry. Calls may overlap (the TUI polls while the user acts), but a refresh never
 * does: two refreshes with the same token would look like token reuse, and the server
 * would revoke the session. A call that got its 401 while another refreshed, or after,
 * joins that refresh or retries with its new token.
 */
export class LoggedIn {
  private refreshing: Promise<void> | null = null;
  /** The dashboard RPC as this user; its calls get the same refresh and retry. */
  readonly rpc: Rpc;

  private constructor(
    private session: StoredSession,
    readonly api: ApiClient,
  ) {
    this.rpc = createRpc(api.baseUrl, (url, init) =>
      this.call((token) => sendToApi(api.baseUrl, url, { ...init, headers: withBearer(init?.headers, token) })),
    );
  }

  static open(apiOption: string | undefined): LoggedIn {
    const session = readSession();
    if (!session) throw new CliError('not logged in; run spanlog login --email <email>');
    return new LoggedIn(session, new ApiClient(apiOption ?? session.api));
  }

  get userId(): string {
    return this.session.user.id;
  }

  get email(): string {
    return this.session.user.email;
  }

  async call<T>(request: (accessToken: string) => Promise<T>): Promise<T> {
    const sent = this.session.access_token;
    try {
      return await request(sent);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
    }
    if (this.session.access_token === sent) {
      this.refreshing ??= this.refresh().finally(() => (this.refreshing = null));
      await this.refreshing;
    }
    return request(this.session.access_token);
  }

  private async refresh(): Promise<void> {
    try {
      this.session = { ...(await this.api.refresh(this.session.refresh_token)), api: this.api.baseUrl };
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw new SessionEndedError();
      throw err;
    }
    writeSession(this.session);
  }
}
