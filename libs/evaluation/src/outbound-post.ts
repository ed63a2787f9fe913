import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import pLimit, { type LimitFunction } from 'p-limit';
import { useAgent } from 'request-filtering-agent';
import { type CallOutcome, EVALUATOR_LIMITS, isNonPublicHost } from '@app/domain';

/** Where evaluator calls may go (SPEC 2.6 and 6.1), for webhooks and judges alike. */
export interface OutboundPolicy {
  /** SPEC 2.6: production calls HTTPS endpoints only. */
  requireHttps: boolean;
  /** Whether private, loopback and link-local addresses may be called (never in production). */
  allowPrivateNetworks: boolean;
}

/** Why a URL may not be called under `policy`, or null when it may; `what` names it in the message. */
export function refusalOf(url: string, policy: OutboundPolicy, what: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${what} is not valid: ${url}`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `${what} must be http(s): ${url}`;
  if (policy.requireHttps && parsed.protocol !== 'https:') return `${what} must use HTTPS in production`;
  // The rule evaluator.create applies; request-filtering-agent applies it again to the address a host name resolves to.
  if (!policy.allowPrivateNetworks && isNonPublicHost(parsed))
    return `${what} must not name a private, loopback, link-local or unspecified address: ${parsed.hostname}`;
  return null;
}

/**
 * SPEC 6.1 rule 5: at most 10 calls in flight per URL (a webhook's, a judge connection's base
 * URL), across every evaluator that names it. A URL's limiter is dropped once idle, so the map
 * holds only URLs in use.
 */
export class PerUrlLimits {
  private readonly perUrl = new Map<string, LimitFunction>();

  async run<T>(url: string, call: () => Promise<T>): Promise<T> {
    let limit = this.perUrl.get(url);
    if (!limit) this.perUrl.set(url, (limit = pLimit(EVALUATOR_LIMITS.concurrentCallsPerUrl)));
    try {
      return await limit(call);
    } finally {
      if (limit.activeCount === 0 && limit.pendingCount === 0) this.perUrl.delete(url);
    }
  }
}

export interface PostOptions {
  timeoutMs: number;
  /** An answer larger than this is abandoned, as a network failure. */
  maxAnswerBytes: number;
  allowPrivateNetworks: boolean;
}

/**
 * POSTs a JSON payload and resolves with what the call came to; never rejects, so no call can
 * fail its job (SPEC 6.1 rule 2). Addresses are checked when the connection is made, after DNS
 * (request-filtering-agent), so a name that resolves to a private address is refused too.
 */
export function postJson(
  url: string,
  headers: Record<string, string>,
  payload: string,
  { timeoutMs, maxAnswerBytes, allowPrivateNetworks }: PostOptions,
  signal?: AbortSignal,
): Promise<CallOutcome> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise<CallOutcome>((resolve) => {
    let req: ClientRequest;
    try {
      req = request(url, {
        method: 'POST',
        agent: useAgent(url, { allowPrivateIPAddress: allowPrivateNetworks }),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'user-agent': 'spanlog-evaluator/1',
        },
      });
    } catch (err) {
      // Node checks the URL and every header when the request is made, and throws: a value
      // stored before today's rules (a character outside Latin-1) must score, not crash.
      return resolve({ kind: 'unsendable', message: (err as Error).message ?? String(err) });
    }
    // Settled once: a time-out or an oversized answer also ends the request, which may then report errors of its own.
    const settle = (outcome: CallOutcome) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const abandon = (message: string) => {
      settle({ kind: 'network', message });
      req.destroy();
    };
    const onAbort = () => abandon('aborted');
    const timer = setTimeout(() => abandon(`timed out after ${timeoutMs} ms`), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => settle({ kind: 'network', message: err.message }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxAnswerBytes) return abandon(`answer larger than ${maxAnswerBytes} bytes`);
        chunks.push(chunk);
      });
      res.on('end', () => settle({ kind: 'answer', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => settle({ kind: 'network', message: err.message }));
    });
    req.end(payload);
  });
}
