import { TRPCClientError, createTRPCClient, httpLink } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../api/src/rpc/router';
import { SessionStore } from './session/session-store';

export const session = new SessionStore(window.sessionStorage, (input, init) => fetch(input, init));

/**
 * Every RPC call carries the session's access token. A 401 gets one refresh and one retry;
 * when that fails too, the session has ended and the app goes back to the login page.
 */
export async function authedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const send = async () => {
    const token = await session.accessToken();
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const res = await send();
  if (res.status !== 401) return res;
  if (!(await session.refresh())) {
    session.expire();
    return res;
  }
  const retried = await send();
  if (retried.status === 401) session.expire();
  return retried;
}

export const rpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: '/api/trpc', fetch: authedFetch })] });

export type Outputs = inferRouterOutputs<AppRouter>;

/** The message a person should read from a failed call (the server's, which names the field). */
export function errorMessage(err: unknown): string {
  if (err instanceof TRPCClientError || err instanceof Error) return err.message;
  return String(err);
}
