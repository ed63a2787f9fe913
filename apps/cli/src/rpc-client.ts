import { createTRPCClient, httpLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
// A type alone: the compiler holds the CLI and the TUI to the API's router, and the built CLI loads no API code.
import type { AppRouter } from '../../api/src/rpc/router';

/** What each procedure answers, as the wire carries it (dates as strings). */
export type RpcOutputs = inferRouterOutputs<AppRouter>;
export type RpcInputs = inferRouterInputs<AppRouter>;

/** Sends one request of the RPC with the caller's credentials; an error answer rejects. */
export type RpcFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The dashboard RPC at `baseUrl` (CONTRACT "Auth and the dashboard RPC"), called by procedure with typed inputs and answers. */
export const createRpc = (baseUrl: string, fetch: RpcFetch) =>
  createTRPCClient<AppRouter>({ links: [httpLink({ url: `${baseUrl}/api/trpc`, fetch })] });

export type Rpc = ReturnType<typeof createRpc>;
