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

/** `--api` as a base URL without its trailing slash. */
export function apiBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`--api: "${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--api: "${text}" must be an http or https URL`);
  return url.toString().replace(/\/+$/, '');
}

const parseJson = (text: string): unknown => {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
};

/**
 * One request to the API at `baseUrl`, REST or RPC alike: an API that cannot be reached and
 * an error answer both become one line the CLI prints, worded the same for every endpoint.
 */
export async function sendToApi(baseUrl: string, url: string | URL, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`cannot reach the Spanlog API at ${baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  if (!res.ok) throw new ApiError(res.status, describeApiError(res.status, parseJson(await res.text())));
  return res;
}

export const withBearer = (headers: RequestInit['headers'], token: string): Headers => {
  const merged = new Headers(headers);
  merged.set('authorization', `Bearer ${token}`);
  return merged;
};

function urlOf(baseUrl: string, path: string, query: Record<string, string | undefined>): URL {
  const url = new URL(`${baseUrl}${path}`);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  token?: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
}

/** The API's REST endpoints: login, refresh and logout, and a project's data read with an API key. */
export class ApiClient {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = apiBaseUrl(baseUrl);
  }

  async login(email: string, password: string): Promise<AuthSession> {
    return (await this.request<{ data: AuthSession }>({ method: 'POST', path: '/api/v1/auth/login', body: { email, password } })).data;
  }

  async refresh(refreshToken: string): Promise<AuthSession> {
    return (
      await this.request<{ data: AuthSession }>({ method: 'POST', path: '/api/v1/auth/refresh', body: { refresh_token: refreshToken } })
    ).data;
  }

  async logout(accessToken: string): Promise<void> {
    await this.request({ method: 'POST', path: '/api/v1/auth/logout', token: accessToken });
  }

  async get<T>(path: string, token: string, query: Record<string, string | undefined> = {}): Promise<T> {
    return this.request<T>({ method: 'GET', path, token, query });
  }

  /** A GET whose body the caller reads as it comes (an export), once the answer is known to be a success. */
  async stream(path: string, token: string, query: Record<string, string | undefined> = {}): Promise<Response> {
    return sendToApi(this.baseUrl, urlOf(this.baseUrl, path, query), { headers: withBearer(undefined, token) });
  }

  async post<T>(path: string, token: string, body: unknown): Promise<T> {
    return this.request<T>({ method: 'POST', path, token, body });
  }

  private async request<T>(call: Call): Promise<T> {
    const url = urlOf(this.baseUrl, call.path, call.query ?? {});
    const headers = call.token ? withBearer(undefined, call.token) : new Headers();
    if (call.body !== undefined) headers.set('content-type', 'application/json');
    const res = await sendToApi(this.baseUrl, url, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    const text = await res.text();
    try {
      return (text ? JSON.parse(text) : null) as T;
    } catch {
      throw new CliError(`the API at ${this.baseUrl} answered ${res.status} with a body that is not JSON`);
    }
  }
}
