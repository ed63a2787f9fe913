import { setTimeout as sleep } from 'node:timers/promises';
import {
  EVALUATOR_LIMITS,
  type JsonObject,
  type JudgeOutcome,
  type JudgeSettings,
  type LlmConnectionSecrets,
  chatCompletionsUrl,
  isRetryable,
  judgeOutcomeOf,
  webhookRetryDelayMs,
} from '@app/domain';
import { type OutboundPolicy, PerUrlLimits, postJson, refusalOf } from './outbound-post';

/** One judge call: the connection it goes to, the evaluator's time-out and retries, and the chat completion body. */
export interface JudgeRequest {
  baseUrl: string;
  timeoutMs: number;
  retries: number;
  secrets: LlmConnectionSecrets;
  judge: Pick<JudgeSettings, 'scoreType' | 'categories'>;
  body: JsonObject;
}

export interface JudgeCall {
  outcome: JudgeOutcome;
  attempts: number;
}

/**
 * Calls LLM judges (issue 29): `POST {baseUrl}/chat/completions` with the connection's key as
 * Bearer and its extra headers, under the rules of webhook calls (SPEC 6.1): the evaluator's
 * time-out per attempt, retries after 1 s, 2 s, 4 s … on 5xx and network errors only, at most
 * 10 calls in flight per base URL, addresses checked after DNS.
 */
export class JudgeCaller {
  constructor(
    private readonly policy: OutboundPolicy,
    private readonly wait: (ms: number, signal?: AbortSignal) => Promise<unknown> = (ms, signal) => sleep(ms, undefined, { signal }),
    private readonly limits: PerUrlLimits = new PerUrlLimits(),
  ) {}

  /** The judge's outcome, whatever the endpoint does. Rejects only when `signal` aborts (the worker is stopping). */
  async call({ baseUrl, timeoutMs, retries, secrets, judge, body }: JudgeRequest, signal?: AbortSignal): Promise<JudgeCall> {
    const url = chatCompletionsUrl(baseUrl);
    const refused = refusalOf(url, this.policy, 'LLM connection base URL');
    if (refused) return { outcome: judgeOutcomeOf({ kind: 'unsendable', message: refused }, 1, judge), attempts: 1 };
    const payload = JSON.stringify(body);
    // The key last: no extra header can replace it.
    const headers = { ...secrets.headers, authorization: `Bearer ${secrets.apiKey}` };
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.limits.run(baseUrl, () => {
        signal?.throwIfAborted();
        return postJson(
          url,
          headers,
          payload,
          { timeoutMs, maxAnswerBytes: EVALUATOR_LIMITS.judgeResponseBytes, allowPrivateNetworks: this.policy.allowPrivateNetworks },
          signal,
        );
      });
      signal?.throwIfAborted();
      if (!isRetryable(outcome) || attempt > retries) return { outcome: judgeOutcomeOf(outcome, attempt, judge), attempts: attempt };
      await this.wait(webhookRetryDelayMs(attempt), signal);
    }
  }
}
