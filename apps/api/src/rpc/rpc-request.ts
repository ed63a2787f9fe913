import type { TRPCError } from '@trpc/server';
import { DomainError } from '@app/domain';
import { parseJsonBytes } from '../http/json-body-parser';
import { toTrpcError } from './rpc-errors';

/** What the RPC needs of an incoming HTTP request. */
export interface IncomingRpc {
  /** Path and query as received: `/api/trpc/project.list?input=…`. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes, undefined when it had none. */
  body: Buffer | undefined;
}

export interface RpcRequest {
  /** The request tRPC sees: always a POST with a JSON body. */
  request: Request;
  /** A problem found before tRPC ran; tRPC answers it in its own error shape. */
  error: TRPCError | null;
}

/** Only the path and query of the URL matter to tRPC; the origin is a placeholder. */
const ORIGIN = 'http://rpc.invalid';
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;
/** tRPC picks JSON or streamed answers from these. */
const FORWARDED_HEADERS = ['accept', 'trpc-accept'];

/**
 * SPEC 4.12: every HTTP method reaches every procedure. tRPC's method override lets a POST
 * call queries and mutations alike, so every request is handed to tRPC as that POST, its
 * input taken from the body or, when the body is empty, from `?input=` (a GET's form). Input
 * is checked by the same JSON parser as every REST body (UTF-8, depth, prototype keys).
 */
export function toRpcRequest(incoming: IncomingRpc): RpcRequest {
  const url = new URL(incoming.url, ORIGIN);
  const headers = new Headers({ 'content-type': 'application/json' });
  for (const name of FORWARDED_HEADERS) {
    const value = incoming.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  let body: string | undefined;
  let error: TRPCError | null = null;
  try {
    body = inputOf(incoming, url);
  } catch (err) {
    error = toTrpcError(err) as TRPCError;
  }
  return { request: new Request(url, { method: 'POST', headers, body }), error };
}

function inputOf(incoming: IncomingRpc, url: URL): string | undefined {
  if (incoming.body?.length) {
    const contentType = incoming.headers['content-type'];
    if (typeof contentType === 'string' && !JSON_CONTENT_TYPE.test(contentType)) {
      throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    }
    parseJsonBytes(incoming.body);
    return incoming.body.toString('utf8');
  }
  const query = url.searchParams.get('input');
  if (query === null) return undefined;
  parseJsonBytes(Buffer.from(query, 'utf8'));
  return query;
}
