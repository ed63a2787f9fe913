import { CliError } from './output';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/** SPEC 2.5: what login and refresh answer inside `data`. */
export interface AuthSession {
  access_token: string;
  refresh_token: string;
  expires_at: number;
  user: { id: string; email: string };
}

/** An error answer of the API; `status` lets callers react to 401. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One line for an error answer, whichever of the API's shapes it has: REST
 * `{error: {code, message}}`, auth `{data: null, error: {code, message}}`, or tRPC
 * `{error: {message, data: {code}}}`.
 */
export function describeApiError(status: number, body: unknown): string {
  const error = body !== null && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  if (error !== null && typeof error === 'object') {
    const { message, code, data } = error as { message?: unknown; code?: unknown; data?: { code?: unknown } };
    const name = typeof code === 'string' ? code : typeof data?.code === 'string' ? data.code : null;
    if (typeof message === 'string') return `${message.replace(/\s+/g, ' ')} (${status}${name ? ` ${name}` : ''})`;
  }
  return `the API answered ${status}`;
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  token?: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
}

/** The Spanlog API over HTTP: REST, the auth endpoints and the dashboard RPC. */
export class ApiClient {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new CliError(`--api: "${baseUrl}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--api: "${baseUrl}" must be an http or https URL`);
    this.baseUrl = url.toString().replace(/\/+$/, '');
  }

  async login(email: string, password: string): Promise<AuthSession> {
    return (await this.request<{ data: AuthSession }>({ method: 'POST', path: '/api/v1/auth/login', body: { email, password } })).data;
  }

  async refresh(refreshToken: string): Promise<AuthSession> {
    return (await this.request<{ data: AuthSession }>({ method: 'POST', path: '/api/v1/auth/refresh', body: { refresh_token: refreshToken } })).data;
  }

  async logout(accessToken: string): Promise<void> {
    await this.request({ method: 'POST', path: '/api/v1/auth/logout', token: accessToken });
  }

  /** A tRPC query, sent as tRPC's own client sends it: GET with the input in `?input=`. */
  async query<T>(procedure: string, input: unknown, accessToken: string): Promise<T> {
    const query = { input: input === undefined ? undefined : JSON.stringify(input) };
    return (await this.request<{ result: { data: T } }>({ method: 'GET', path: `/api/trpc/${procedure}`, token: accessToken, query })).result.data;
  }

  async mutate<T>(procedure: string, input: unknown, accessToken: string): Promise<T> {
    return (await this.request<{ result: { data: T } }>({ method: 'POST', path: `/api/trpc/${procedure}`, token: accessToken, body: input })).result.data;
  }

  async get<T>(path: string, token: string, query: Record<string, string | undefined> = {}): Promise<T> {
    return this.request<T>({ method: 'GET', path, token, query });
  }

  async post<T>(path: string, token: string, body: unknown): Promise<T> {
    return this.request<T>({ method: 'POST', path, token, body });
  }

  private async request<T>(call: Call): Promise<T> {
    const url = new URL(`${this.baseUrl}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = {};
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach the Spanlog API at ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      if (res.ok) throw new CliError(`the API at ${this.baseUrl} answered ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) throw new ApiError(res.status, describeApiError(res.status, body));
    return body as T;
  }
}
