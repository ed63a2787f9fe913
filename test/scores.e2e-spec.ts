import { exportOf, span } from '@app/otlp/testing/otlp-builders';
import { type Tenant, bootstrap, send } from './support/api';
import { smallBatch } from './support/factories';
import { NATIVE_TRACES, OTLP_TRACES, SCORES, write } from './support/ingest';
import { type Stack, startStack } from './support/stack';

const TRACE_HEX = '0af7651916cd43dd8448eb211c80319c';
const SPAN_HEX = 'b7ad6b7169203331';

/** POST /api/v1/scores (SPEC 4.3, CONTRACT "Scores") from the request to the trace read. */
describe('scores', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'scores@spanlog.test', 'Scores', 'p', 'pro');
  }, 120_000);

  afterAll(() => stack?.stop());

  const get = (path: string) => send(stack, 'GET', path, { token: tenant.apiKey });
  const scoreRows = async (externalId: string) =>
    (await stack.db.query('SELECT value, comment FROM scores WHERE project_id = $1 AND external_id = $2', [tenant.projectId, externalId]))
      .rows;

  it('stores one score or a list, answers 201 with their ids, the seq token and the rate-limit headers, and shows them on the trace and on their span', async () => {
    const otlp = await write(
      stack,
      tenant.apiKey,
      OTLP_TRACES,
      exportOf([span({ traceId: TRACE_HEX, spanId: SPAN_HEX, parentSpanId: '', name: 'answer' })]),
    );
    expect(otlp.status).toBe(200);
    const one = await write(stack, tenant.apiKey, SCORES, { traceId: TRACE_HEX, name: 'helpful', value: 0.8, comment: 'good answer' });
    expect(one.status).toBe(201);
    expect(one.body).toEqual({ accepted: 1, ids: [expect.stringMatching(/^[0-9a-f-]{36}$/)] });
    expect(one.headers.get('spanlog-seq')).toMatch(/^v1\./);
    expect(one.headers.get('ratelimit-limit')).toBe('1000');
    expect(Number(one.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(one.headers.get('ratelimit-reset')).toMatch(/^\d+$/);

    const many = await write(stack, tenant.apiKey, SCORES, {
      scores: [
        { traceId: TRACE_HEX, spanId: SPAN_HEX, name: 'correct', value: true, metadata: { judge: 'human' } },
        { traceId: TRACE_HEX.toUpperCase(), spanId: SPAN_HEX, name: 'tone', value: 'friendly', dataType: 'CATEGORICAL' },
      ],
    });
    expect(many.status).toBe(201);
    expect(many.body.accepted).toBe(2);
    const trace = await get(`/api/v1/traces/${TRACE_HEX}?minSeq=${many.headers.get('spanlog-seq')}`);
    expect(trace.status).toBe(200);
    const byName = Object.fromEntries(trace.body.scores.map((s: any) => [s.name, s]));
    expect(byName.helpful).toMatchObject({
      id: one.body.ids[0],
      value: 0.8,
      dataType: 'NUMERIC',
      comment: 'good answer',
      source: 'API',
      spanId: null,
      traceId: trace.body.id,
    });
    expect(byName.correct).toMatchObject({ id: many.body.ids[0], value: true, dataType: 'BOOLEAN', metadata: { judge: 'human' } });
    expect(byName.tone).toMatchObject({ id: many.body.ids[1], value: 'friendly', dataType: 'CATEGORICAL' });
    const [answerSpan] = trace.body.spans;
    expect(answerSpan.scores.map((s: any) => s.name).sort()).toEqual(['correct', 'tone']);
  });

  it('stores a score sent twice with one id once, the later values winning', async () => {
    const first = await write(stack, tenant.apiKey, SCORES, { id: 'review-1', traceId: TRACE_HEX, name: 'review', value: 0.2 });
    const again = await write(stack, tenant.apiKey, SCORES, { id: 'review-1', traceId: TRACE_HEX, name: 'review', value: 0.2 });
    const revised = await write(stack, tenant.apiKey, SCORES, {
      id: 'review-1',
      traceId: TRACE_HEX,
      name: 'review',
      value: 0.9,
      comment: 'revised',
    });
    expect(again.body.ids).toEqual(first.body.ids);
    expect(revised.body.ids).toEqual(first.body.ids);
    expect((await get(`/api/v1/traces/${TRACE_HEX}?minSeq=${revised.headers.get('spanlog-seq')}`)).status).toBe(200);
    expect(await scoreRows('review-1')).toEqual([{ value: 0.9, comment: 'revised' }]);
  });

  it('keeps a score sent before its trace and shows it once the trace arrives', async () => {
    const early = await write(stack, tenant.apiKey, SCORES, { traceId: 'arrives-later', name: 'early', value: 1 });
    expect(early.status).toBe(201);
    expect((await get(`/api/v1/traces/arrives-later?minSeq=${early.headers.get('spanlog-seq')}`)).status).toBe(404);
    const traced = await write(stack, tenant.apiKey, NATIVE_TRACES, smallBatch('arrives-later'));
    const trace = await get(`/api/v1/traces/arrives-later?minSeq=${traced.headers.get('spanlog-seq')}`);
    expect(trace.status).toBe(200);
    expect(trace.body.scores).toEqual([expect.objectContaining({ id: early.body.ids[0], name: 'early', value: 1 })]);
  });

  it('filters the trace list by score name and value', async () => {
    const low = await write(stack, tenant.apiKey, NATIVE_TRACES, smallBatch('scored-low'));
    const high = await write(stack, tenant.apiKey, NATIVE_TRACES, smallBatch('scored-high'));
    await write(stack, tenant.apiKey, SCORES, {
      scores: [
        { traceId: 'scored-low', name: 'quality', value: 0.1 },
        { traceId: 'scored-high', name: 'quality', value: 0.95 },
      ],
    });
    const last = await write(stack, tenant.apiKey, SCORES, { traceId: 'scored-high', name: 'passed', value: true });
    expect([low.status, high.status]).toEqual([201, 201]);
    const names = async (query: string) =>
      ((await get(`/api/v1/traces?${query}&minSeq=${last.headers.get('spanlog-seq')}`)).body.data as any[]).map((t) => t.externalId).sort();
    expect(await names('scoreName=quality')).toEqual(['scored-high', 'scored-low']);
    expect(await names('scoreName=quality&minScore=0.5')).toEqual(['scored-high']);
    expect(await names('scoreName=quality&maxScore=0.5')).toEqual(['scored-low']);
    expect(await names('scoreName=passed&minScore=1')).toEqual(['scored-high']);
    const bad = await get('/api/v1/traces?minScore=high');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('minScore');
  });

  it('answers 400 naming the field, 413 past 1,000 scores or 1 MB, and 401 without a valid key', async () => {
    const invalid = await write(stack, tenant.apiKey, SCORES, {
      scores: [
        { traceId: 't', name: 'a', value: 1 },
        { traceId: 't', name: 'a' },
      ],
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining('scores[1].value') });
    expect((await write(stack, tenant.apiKey, SCORES, '[]')).status).toBe(400);

    const tooMany = await write(stack, tenant.apiKey, SCORES, {
      scores: Array.from({ length: 1_001 }, (_, i) => ({ traceId: 't', name: `s${i}`, value: i })),
    });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const tooBig = await write(stack, tenant.apiKey, SCORES, { traceId: 't', name: 'a', value: 1, comment: 'x'.repeat(1024 * 1024) });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('PAYLOAD_TOO_LARGE');

    expect((await write(stack, null, SCORES, { traceId: 't', name: 'a', value: 1 })).status).toBe(401);
    const wrongKey = await write(stack, 'sl_not_a_key', SCORES, { traceId: 't', name: 'a', value: 1 });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body.error.code).toBe('UNAUTHORIZED');
  });
});
