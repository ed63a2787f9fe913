import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit, { type LimitFunction } from 'p-limit';
import { useAgent } from 'request-filtering-agent';
import { Webhook } from 'standardwebhooks';
import {
  type CallOutcome,
  EVALUATOR_LIMITS,
  type Evaluation,
  type EvaluatorSettings,
  SIGNATURE_HEADERS,
  type EvaluationRequestBody,
  evaluationOf,
  isNonPublicHost,
  isRetryable,
  webhookRetryDelayMs,
} from '@app/domain';
import type { EvaluatorSecrets } from '@app/persistence';

export interface WebhookPolicy {
  /** SPEC 2.6: production calls HTTPS endpoints only. */
  requireHttps: boolean;
  /** Whether private, loopback and link-local addresses may be called (never in production). */
  allowPrivateNetworks: boolean;
}

export interface WebhookCall extends Evaluation {
  attempts: number;
}

/** Where a call goes and how long it may take: the evaluator's settings a call reads. */
export type WebhookTarget = Pick<EvaluatorSettings, 'url' | 'timeoutMs' | 'retries'>;

/** One evaluation's call: its target, the evaluator's secrets, and the message id every attempt is signed with. */
export interface WebhookRequest {
  target: WebhookTarget;
  secrets: EvaluatorSecrets;
  /** Standard Webhooks' `webhook-id`: the job's, so a receiver sees a retry as the same message. */
  messageId: string;
  body: EvaluationRequestBody;
}

/**
 * Calls evaluator webhooks (SPEC 6.1): POST of the JSON body with the evaluator's headers,
 * each attempt signed the Standard Webhooks way with the evaluator's secret, the evaluator's
 * time-out per attempt, retries with backoff on 5xx and network errors only, and at most 10
 * calls in flight per URL across every evaluator that names it. Addresses are checked when
 * the connection is made, after DNS, so a name that resolves to a private address is refused too.
 */
export class WebhookCaller {
  private readonly perUrl = new Map<string, LimitFunction>();

  constructor(
    private readonly policy: WebhookPolicy,
    private readonly wait: (ms: number, signal?: AbortSignal) => Promise<unknown> = (ms, signal) => sleep(ms, undefined, { signal }),
  ) {}

  /**
   * The evaluator's result for the request, whatever the endpoint does. Rejects only when
   * `signal` aborts (the worker is stopping): the job has no result then, and runs again elsewhere.
   */
  async evaluate({ target, secrets, messageId, body }: WebhookRequest, signal?: AbortSignal): Promise<WebhookCall> {
    const refused = this.refusal(target.url);
    if (refused) return { ...evaluationOf({ kind: 'unsendable', message: refused }, 1), attempts: 1 };
    let signer: Webhook;
    try {
      signer = new Webhook(secrets.signingSecret);
    } catch (err) {
      return {
        ...evaluationOf({ kind: 'unsendable', message: `the signing secret is not usable: ${(err as Error).message}` }, 1),
        attempts: 1,
      };
    }
    const payload = JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.limited(target.url, () => {
        signal?.throwIfAborted();
        // Signed when sent, not when first tried: receivers refuse timestamps minutes old.
        const sentAt = new Date(Math.floor(Date.now() / 1_000) * 1_000);
        const signature = {
          [SIGNATURE_HEADERS.id]: messageId,
          [SIGNATURE_HEADERS.timestamp]: String(sentAt.getTime() / 1_000),
          [SIGNATURE_HEADERS.signature]: signer.sign(messageId, sentAt, payload),
        };
        return this.call(target, { ...secrets.headers, ...signature }, payload, signal);
      });
      signal?.throwIfAborted();
      if (!isRetryable(outcome) || attempt > target.retries) return { ...evaluationOf(outcome, attempt), attempts: attempt };
      await this.wait(webhookRetryDelayMs(attempt), signal);
    }
  }

  private refusal(url: string): string | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return `evaluator URL is not valid: ${url}`;
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `evaluator URL must be http(s): ${url}`;
    if (this.policy.requireHttps && parsed.protocol !== 'https:') return 'evaluator URL must use HTTPS in production';
    // The rule evaluator.create applies; request-filtering-agent applies it again to the address a host name resolves to.
    if (!this.policy.allowPrivateNetworks && isNonPublicHost(parsed))
      return `evaluator URL must not name a private, loopback, link-local or unspecified address: ${parsed.hostname}`;
    return null;
  }

  /** The per-URL limit; a URL's limiter is dropped once idle so the map holds only URLs in use. */
  private async limited<T>(url: string, call: () => Promise<T>): Promise<T> {
    let limit = this.perUrl.get(url);
    if (!limit) this.perUrl.set(url, (limit = pLimit(EVALUATOR_LIMITS.concurrentCallsPerUrl)));
    try {
      return await limit(call);
    } finally {
      if (limit.activeCount === 0 && limit.pendingCount === 0) this.perUrl.delete(url);
    }
  }

  /** Resolves with what the call came to; never rejects, so no call can fail its job (SPEC 6.1 rule 2). */
  private call(
    { url, timeoutMs }: WebhookTarget,
    headers: Record<string, string>,
    payload: string,
    signal?: AbortSignal,
  ): Promise<CallOutcome> {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    return new Promise<CallOutcome>((resolve) => {
      let req: ClientRequest;
      try {
        req = request(url, {
          method: 'POST',
          agent: useAgent(url, { allowPrivateIPAddress: this.policy.allowPrivateNetworks }),
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
          if (size > EVALUATOR_LIMITS.responseBytes) return abandon(`answer larger than ${EVALUATOR_LIMITS.responseBytes} bytes`);
          chunks.push(chunk);
        });
        res.on('end', () => settle({ kind: 'answer', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => settle({ kind: 'network', message: err.message }));
      });
      req.end(payload);
    });
  }
}
