import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { OPENAPI_CHECK, checkAnswer } from './openapi-check';
import { type Stack, runCli } from './stack';

/** Helpers for the auth endpoints and the dashboard RPC over HTTP, as a client would call them. */

export interface HttpAnswer {
  status: number;
  body: any;
}

export interface Session {
  access_token: string;
  refresh_token: string;
  expires_at: number;
  user: { id: string; email: string };
}

export interface Tenant {
  userId: string;
  orgId: string;
  projectId: string;
  apiKey: string;
  apiKeyId: string;
}

export const PASSWORD = 'correct horse battery staple';

export async function send(
  stack: Stack,
  method: string,
  path: string,
  init: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  const answer = { status: res.status, body: text ? JSON.parse(text) : null };
  if (OPENAPI_CHECK) await checkAnswer(stack.baseUrl, method, path, answer.status, answer.body);
  return answer;
}

export async function login(stack: Stack, email: string, password = PASSWORD): Promise<Session> {
  const res = await send(stack, 'POST', '/api/v1/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login of ${email} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data as Session;
}

/** A tRPC query the way tRPC's client sends one: GET with `?input=`. */
export function query(stack: Stack, token: string | undefined, procedure: string, input?: unknown): Promise<HttpAnswer> {
  const search = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  return send(stack, 'GET', `/api/trpc/${procedure}${search}`, { token });
}

/** A tRPC mutation: POST with the input as the body. */
export function mutate(stack: Stack, token: string | undefined, procedure: string, input?: unknown): Promise<HttpAnswer> {
  return send(stack, 'POST', `/api/trpc/${procedure}`, { token, body: input ?? {} });
}

/** The data of a successful tRPC answer; fails the test with the error otherwise. */
export function data<T = any>(answer: HttpAnswer): T {
  if (answer.status !== 200) throw new Error(`tRPC answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.result.data as T;
}

export async function bootstrap(stack: Stack, email: string, org: string, project: string, plan = 'free'): Promise<Tenant> {
  const res = await runCli(
    ['admin', 'bootstrap', '--email', email, '--password', PASSWORD, '--org', org, '--project', project, '--plan', plan, '--json'],
    stack.env,
  );
  if (res.code !== 0) throw new Error(`bootstrap failed: ${res.stderr}`);
  return JSON.parse(res.stdout) as Tenant;
}

export async function createUser(stack: Stack, email: string): Promise<string> {
  const res = await runCli(['admin', 'user', 'create', '--email', email, '--password', PASSWORD, '--json'], stack.env);
  if (res.code !== 0) throw new Error(`user create failed: ${res.stderr}`);
  return (JSON.parse(res.stdout) as { id: string }).id;
}

export async function setPlan(stack: Stack, orgId: string, plan: string): Promise<void> {
  const res = await runCli(['admin', 'set-plan', '--org', orgId, '--plan', plan, '--json'], stack.env);
  if (res.code !== 0) throw new Error(`set-plan failed: ${res.stderr}`);
}

/**
 * Polls `read` until `done` holds: for what the processor projects from a stream (the audit
 * log), which has no read-your-writes token. Fails after `timeoutMs` with the last value.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

/** A JWT signed HS256 with `secret`, as someone holding the server's secret could forge one. */
export function signJwt(claims: Record<string, unknown>, secret: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** The claims of a JWT, unchecked. */
export const jwtClaims = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

/**
 * One request written on a socket as given, for what fetch will not send (oversized headers);
 * resolves with the status and the body once the server ends the connection.
 */
export async function rawRequest(stack: Stack, request: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(stack.baseUrl);
  const socket = connect(Number(port), hostname);
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  socket.end(request);
  await once(socket, 'close');
  const split = text.indexOf('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), headers: text.slice(0, split), body: text.slice(split + 4) };
}
