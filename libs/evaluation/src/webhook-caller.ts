import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import {
  EVALUATOR_LIMITS,
  type Evaluation,
  type EvaluatorSettings,
  SIGNATURE_HEADERS,
  type EvaluationRequestBody,
  evaluationOf,
  isRetryable,
  webhookRetryDelayMs,
} from '@app/domain';
import type { EvaluatorSecrets } from '@app/persistence';
import { type OutboundPolicy, PerUrlLimits, postJson, refusalOf } from './outbound-post';

export type WebhookPolicy = OutboundPolicy;

export interface WebhookCall extends Evaluation {
  attempts: number;
}

/** Where a call goes and how long it may take: the evaluator's settings a call reads. */
export type WebhookTarget = Pick<EvaluatorSettings, 'timeoutMs' | 'retries'> & { url: string };

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
  constructor(
    private readonly policy: WebhookPolicy,
    private readonly wait: (ms: number, signal?: AbortSignal) => Promise<unknown> = (ms, signal) => sleep(ms, undefined, { signal }),
    /** Shared with the judge caller: a URL's 10 calls in flight count every evaluator's. */
    private readonly limits: PerUrlLimits = new PerUrlLimits(),
  ) {}

  /**
   * The evaluator's result for the request, whatever the endpoint does. Rejects only when
   * `signal` aborts (the worker is stopping): the job has no result then, and runs again elsewhere.
   */
  async evaluate({ target, secrets, messageId, body }: WebhookRequest, signal?: AbortSignal): Promise<WebhookCall> {
    const refused = refusalOf(target.url, this.policy, 'evaluator URL');
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
      const outcome = await this.limits.run(target.url, () => {
        signal?.throwIfAborted();
        // Signed when sent, not when first tried: receivers refuse timestamps minutes old.
        const sentAt = new Date(Math.floor(Date.now() / 1_000) * 1_000);
        const signature = {
          [SIGNATURE_HEADERS.id]: messageId,
          [SIGNATURE_HEADERS.timestamp]: String(sentAt.getTime() / 1_000),
          [SIGNATURE_HEADERS.signature]: signer.sign(messageId, sentAt, payload),
        };
        return postJson(
          target.url,
          { ...secrets.headers, ...signature },
          payload,
          {
            timeoutMs: target.timeoutMs,
            maxAnswerBytes: EVALUATOR_LIMITS.responseBytes,
            allowPrivateNetworks: this.policy.allowPrivateNetworks,
          },
          signal,
        );
      });
      signal?.throwIfAborted();
      if (!isRetryable(outcome) || attempt > target.retries) return { ...evaluationOf(outcome, attempt), attempts: attempt };
      await this.wait(webhookRetryDelayMs(attempt), signal);
    }
  }
}
