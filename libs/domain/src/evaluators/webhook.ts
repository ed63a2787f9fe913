import { EVALUATOR_LIMITS } from '../limits';
import type { JsonObject, JsonValue } from '../json/types';
import type { EvaluatorSettings } from './evaluator';

/** SPEC 6.1: what the webhook receives. */
export interface WebhookRequestBody {
  traceId: string;
  spanId: string;
  input: string;
  output: string;
  metadata: JsonObject;
  expectedOutput: null;
}

/** The span fields an evaluation reads. */
export interface EvaluatedSpan {
  traceId: string;
  spanId: string;
  input: JsonValue | null;
  output: JsonValue | null;
}

/** An evaluator result (SPEC 6.1 rules 1 and 2): what is stored as the score. */
export interface EvaluationResult {
  score: number;
  pass: boolean;
  reason: string | null;
  metadata: JsonObject | null;
}

/** What one call to the webhook came to. */
export type CallOutcome =
  | { kind: 'answer'; status: number; body: string }
  /** No HTTP answer: refused, reset, unresolvable, blocked address, timed out, or an answer too large. */
  | { kind: 'network'; message: string }
  /** The call could not be made at all (a URL or header value HTTP cannot carry): trying again cannot help. */
  | { kind: 'unsendable'; message: string };

/**
 * The headers that sign a call, Standard Webhooks' (www.standardwebhooks.com): the message id
 * (the job's, the same on every retry), the Unix time in seconds, and `v1,<base64 HMAC-SHA256
 * of "id.timestamp.body">` under the evaluator's own secret. A receiver verifies them with any
 * Standard Webhooks library; an evaluator cannot configure them.
 */
export const SIGNATURE_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;

/** SPEC 6.1 wants text: a string is sent as it is, any other JSON value as its JSON. */
export const asText = (value: JsonValue | null): string =>
  typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value);

/**
 * The call's body. `metadata` is the evaluator's configuration without its headers: they
 * usually hold the endpoint's credentials, which the endpoint has no need to see echoed.
 */
export function webhookRequestBody(
  span: EvaluatedSpan,
  evaluator: Pick<EvaluatorSettings, 'name' | 'url' | 'timeoutMs' | 'retries' | 'filter'> & { id: string },
): WebhookRequestBody {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    input: asText(span.input),
    output: asText(span.output),
    metadata: {
      id: evaluator.id,
      name: evaluator.name,
      url: evaluator.url,
      timeoutMs: evaluator.timeoutMs,
      retries: evaluator.retries,
      filter: { spanTypes: evaluator.filter.spanTypes, names: evaluator.filter.names, sampleRate: evaluator.filter.sampleRate },
    },
    expectedOutput: null,
  };
}

/** SPEC 6.1 rules 3 and 4: only a 5xx or no answer at all is tried again. */
export function isRetryable(outcome: CallOutcome): boolean {
  switch (outcome.kind) {
    case 'network':
      return true;
    case 'answer':
      return outcome.status >= 500;
    case 'unsendable':
      return false;
  }
}

/** Backoff before retry n (1-based): 1 s, 2 s, 4 s … (SPEC 6.1 rule 3). */
export const webhookRetryDelayMs = (retry: number): number => EVALUATOR_LIMITS.retryBackoffMs * 2 ** (retry - 1);

/**
 * How long a job waits when its URL already has `jobsHeldPerUrl` jobs in hand, given how often
 * it was deferred before: 1 s, 2 s, 4 s … up to 5 minutes, so a URL that answers again soon
 * gets its jobs back soon, and one that stays down costs a look-up per job every 5 minutes.
 */
export const evalDeferralDelayMs = (deferrals: number): number =>
  Math.min(EVALUATOR_LIMITS.maxDeferralMs, EVALUATOR_LIMITS.deferralBackoffMs * 2 ** Math.min(deferrals, 30));

/** What an evaluation came to: the endpoint's pass or fail, or an error (no valid answer). */
export type EvaluationVerdict = 'pass' | 'fail' | 'error';

export interface Evaluation {
  verdict: EvaluationVerdict;
  result: EvaluationResult;
}

const failed = (reason: string): Evaluation => ({
  verdict: 'error',
  result: { score: 0, pass: false, reason: reason.slice(0, EVALUATOR_LIMITS.reasonLength), metadata: null },
});

/**
 * The result a final outcome gives (SPEC 6.1 rule 2): the endpoint's score and pass flag, or
 * score 0 and fail with what went wrong as the reason, which is an error rather than a fail.
 */
export function evaluationOf(outcome: CallOutcome, attempts: number): Evaluation {
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  if (outcome.kind === 'unsendable') return failed(`webhook call could not be made: ${outcome.message}`);
  if (outcome.kind === 'network') return failed(`webhook call failed after ${tries}: ${outcome.message}`);
  if (outcome.status < 200 || outcome.status > 299)
    return failed(`webhook answered HTTP ${outcome.status} after ${tries}: ${outcome.body.slice(0, 500)}`);
  let answer: unknown;
  try {
    answer = JSON.parse(outcome.body);
  } catch {
    return failed(`webhook answer is not JSON: ${outcome.body.slice(0, 500)}`);
  }
  const a = answer as Record<string, unknown> | null;
  if (!a || typeof a !== 'object' || Array.isArray(a)) return failed('webhook answer is not a JSON object');
  if (typeof a.score !== 'number' || !Number.isFinite(a.score) || a.score < 0 || a.score > 1)
    return failed('webhook answer: score must be a number from 0.0 to 1.0');
  if (typeof a.pass !== 'boolean') return failed('webhook answer: pass must be a boolean');
  if (a.reason !== undefined && a.reason !== null && typeof a.reason !== 'string') return failed('webhook answer: reason must be a string');
  if (a.metadata !== undefined && a.metadata !== null && (typeof a.metadata !== 'object' || Array.isArray(a.metadata)))
    return failed('webhook answer: metadata must be an object');
  return {
    verdict: a.pass ? 'pass' : 'fail',
    result: {
      score: a.score,
      pass: a.pass,
      reason: typeof a.reason === 'string' ? a.reason.slice(0, EVALUATOR_LIMITS.reasonLength) : null,
      metadata: (a.metadata as JsonObject | undefined) ?? null,
    },
  };
}
