import fc from 'fast-check';
import { EVALUATOR_LIMITS } from '../limits';
import { type CallOutcome, evalDeferralDelayMs, evaluationOf, isRetryable, webhookRequestBody, webhookRetryDelayMs } from './webhook';

const answer = (status: number, body: unknown): CallOutcome => ({
  kind: 'answer',
  status,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('webhook evaluator rules (SPEC 6.1)', () => {
  const evaluator = {
    id: '0b6b1a4e-8f0e-4d8e-9d38-2f1c9a1b2c3d',
    name: 'helpfulness',
    url: 'https://eval.example.com/score',
    headers: { authorization: 'Bearer secret' },
    timeoutMs: 10_000,
    retries: 1,
    filter: { spanTypes: ['LLM'], names: [], sampleRate: 1, tags: [], environments: [] },
    enabled: true,
    target: 'span' as const,
    quietSeconds: 30,
  };

  it('sends input and output as text, the configuration without its headers, and no expected output', () => {
    const body = webhookRequestBody(
      { traceId: 't', spanId: 's', input: { messages: [{ role: 'user', content: 'hi' }] }, output: 'hello' },
      evaluator,
    );
    expect(body).toEqual({
      traceId: 't',
      spanId: 's',
      input: '{"messages":[{"role":"user","content":"hi"}]}',
      output: 'hello',
      metadata: {
        id: evaluator.id,
        name: 'helpfulness',
        url: evaluator.url,
        timeoutMs: 10_000,
        retries: 1,
        filter: { spanTypes: ['LLM'], names: [], sampleRate: 1 },
      },
      expectedOutput: null,
    });
    expect(JSON.stringify(body)).not.toContain('secret');
  });

  it("takes the endpoint's score, pass flag, reason and metadata", () => {
    expect(evaluationOf(answer(200, { score: 0.8, pass: true, reason: 'fine', metadata: { judge: 'x' } }), 1)).toEqual({
      verdict: 'pass',
      result: { score: 0.8, pass: true, reason: 'fine', metadata: { judge: 'x' } },
    });
    expect(evaluationOf(answer(201, { score: 0, pass: false }), 1)).toEqual({
      verdict: 'fail',
      result: { score: 0, pass: false, reason: null, metadata: null },
    });
  });

  it.each([
    ['an HTTP error', answer(401, 'no'), /HTTP 401 after 1 attempt: no/],
    ['a server error after retries', answer(503, 'down'), /HTTP 503 after 3 attempts/],
    ['no answer', { kind: 'network', message: 'connect ECONNREFUSED' } as CallOutcome, /failed after 3 attempts: connect ECONNREFUSED/],
    [
      'a call that could not be made',
      { kind: 'unsendable', message: 'Invalid character in header content ["x-key"]' } as CallOutcome,
      /could not be made: Invalid character in header content \["x-key"\]/,
    ],
    ['invalid JSON', answer(200, '{nope'), /not JSON/],
    ['not an object', answer(200, [1]), /not a JSON object/],
    ['a score above 1', answer(200, { score: 1.5, pass: true }), /score must be a number from 0.0 to 1.0/],
    ['a score that is not a number', answer(200, { score: '1', pass: true }), /score must be/],
    ['no pass flag', answer(200, { score: 1 }), /pass must be a boolean/],
    ['a reason that is not text', answer(200, { score: 1, pass: true, reason: 3 }), /reason must be a string/],
    ['metadata that is not an object', answer(200, { score: 1, pass: true, metadata: [] }), /metadata must be an object/],
  ])('scores %s as 0 and fail, with the details as the reason, and calls it an error', (_name, outcome, reason) => {
    const attempts = isRetryable(outcome) ? 3 : 1;
    const { verdict, result } = evaluationOf(outcome, attempts);
    expect(verdict).toBe('error');
    expect(result).toMatchObject({ score: 0, pass: false, metadata: null });
    expect(result.reason).toMatch(reason);
  });

  it('keeps every reason within the stored length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5_000 }), fc.integer({ min: 100, max: 599 }), (text, status) => {
        const fromBody = evaluationOf(answer(status, text), 1).result.reason ?? '';
        const fromAnswer = evaluationOf(answer(200, { score: 0.5, pass: true, reason: text }), 1).result.reason ?? '';
        return fromBody.length <= EVALUATOR_LIMITS.reasonLength && fromAnswer.length <= EVALUATOR_LIMITS.reasonLength;
      }),
    );
  });

  it('retries only 5xx answers and calls that got no answer, after 1 s, 2 s, 4 s …', () => {
    expect(isRetryable(answer(500, ''))).toBe(true);
    expect(isRetryable(answer(599, ''))).toBe(true);
    expect(isRetryable({ kind: 'network', message: 'timed out' })).toBe(true);
    expect(isRetryable({ kind: 'unsendable', message: 'Invalid character in header content ["x-key"]' })).toBe(false);
    for (const status of [200, 400, 401, 404, 429]) expect(isRetryable(answer(status, ''))).toBe(false);
    expect([1, 2, 3, 4, 5].map(webhookRetryDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
  });

  it('defers a job of a busy URL for 1 s, 2 s, 4 s … and never more than 5 minutes', () => {
    expect([0, 1, 2, 3].map(evalDeferralDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(evalDeferralDelayMs(9)).toBe(300_000);
    expect(evalDeferralDelayMs(10_000)).toBe(300_000);
  });
});
