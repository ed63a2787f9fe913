import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit, { type LimitFunction } from 'p-limit';
import { useAgent } from 'request-filtering-agent';
import {
  type CallOutcome,
  EVALUATOR_LIMITS,
  type Evaluation,
  type EvaluatorSettings,
  type WebhookRequestBody,
  evaluationOf,
  isRetryable,
  webhookRetryDelayMs,
} from '@app/domain';

export interface WebhookPolicy {
  /** SPEC 2.6: production calls HTTPS endpoints only. */
  requireHttps: boolean;
  /** Whether private, loopback and link-local addresses may be called (never in production). */
  allowPrivateNetworks: boolean;
}

export interface WebhookCall extends Evaluation {
  attempts: number;
}

/**
 * Calls evaluator webhooks (SPEC 6.1): POST of the JSON body with the evaluator's headers,
 * the evaluator's time-out per attempt, retries with backoff on 5xx and network errors only,
 * and at most 10 calls in flight per URL across every evaluator that names it. Addresses are
 * checked when the connection is made, after DNS, so a name that resolves to a private
 * address is refused too.
 */
export class WebhookCaller {
  private readonly perUrl = new Map<string, LimitFunction>();

  constructor(
    private readonly policy: WebhookPolicy,
    private readonly wait: (ms: number) => Promise<unknown> = sleep,
  ) {}

  async evaluate(evaluator: Pick<EvaluatorSettings, 'url' | 'headers' | 'timeoutMs' | 'retries'>, body: WebhookRequestBody): Promise<WebhookCall> {
    const refused = this.refusal(evaluator.url);
    if (refused) return { ...evaluationOf({ kind: 'network', message: refused }, 1), attempts: 1 };
    const payload = JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.limited(evaluator.url, () => this.call(evaluator, payload));
      if (!isRetryable(outcome) || attempt > evaluator.retries) return { ...evaluationOf(outcome, attempt), attempts: attempt };
      await this.wait(webhookRetryDelayMs(attempt));
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

  private call(evaluator: Pick<EvaluatorSettings, 'url' | 'headers' | 'timeoutMs'>, payload: string): Promise<CallOutcome> {
    const { url, headers, timeoutMs } = evaluator;
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    return new Promise<CallOutcome>((resolve) => {
      const req = request(url, {
        method: 'POST',
        agent: useAgent(url, { allowPrivateIPAddress: this.policy.allowPrivateNetworks }),
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'user-agent': 'spanlog-evaluator/1' },
      });
      // Settled once: a time-out or an oversized answer also ends the request, which may then report errors of its own.
      const settle = (outcome: CallOutcome) => {
        clearTimeout(timer);
        resolve(outcome);
      };
      const abandon = (message: string) => {
        settle({ kind: 'network', message });
        req.destroy();
      };
      const timer = setTimeout(() => abandon(`timed out after ${timeoutMs} ms`), timeoutMs);
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
