import { type Tenant, bootstrap, eventually } from './support/api';
import { NATIVE_TRACES, SCORES, write } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

const DAY_MS = 86_400_000;
const CALLS = 12;

/** Per model: how long its calls take, what they cost, and the quality score they get. */
const PROFILES = {
  cheap: { ms: 1_000, cost: 0.0001, quality: 0.5 },
  fast: { ms: 300, cost: 0.01, quality: 0.6 },
  smart: { ms: 2_500, cost: 0.005, quality: 0.95 },
} as const;

/** POST /api/v1/route-model (SPEC 4.4, CONTRACT "Model routing") over the model-stats read model. */
describe('model routing', () => {
  let stack: Stack;
  let tenant: Tenant;
  let free: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'routing@spanlog.test', 'Routing', 'p', 'team');
    free = await bootstrap(stack, 'routing-free@spanlog.test', 'Routing free', 'p', 'free');
  }, 120_000);

  afterAll(() => stack?.stop());

  const calls = (model: keyof typeof PROFILES, key: string) => {
    const { ms, cost } = PROFILES[model];
    const start = Date.now() - 60_000;
    return {
      batch: Array.from({ length: CALLS }, (_, i) => ({
        id: `${model}-${i}`,
        type: 'generation-create',
        timestamp: new Date(start).toISOString(),
        body: {
          id: `${key}-${model}-call-${i}`,
          traceId: `${key}-${model}-trace-${i}`,
          name: 'chat',
          model,
          startTime: new Date(start).toISOString(),
          endTime: new Date(start + ms).toISOString(),
          cost,
          usage: { input: 20, output: 10 },
        },
      })),
    };
  };
  const route = (body: unknown) => write(stack, tenant.apiKey, '/api/v1/route-model', body);
  const statsTables = async () => ({
    stats: (
      await stack.db.query(
        'SELECT project_id, model, hour, calls, errors, timed_calls, latency_sum_ms, latency_hist, costed_calls, cost_usd, prompt_tokens, completion_tokens FROM model_stats ORDER BY 1, 2, 3',
      )
    ).rows,
    scores: (await stack.db.query('SELECT * FROM model_score_stats ORDER BY 1, 2, 3, 4, 5')).rows,
  });
  const settled = () =>
    eventually(
      async () => (await stack.db.query('SELECT count(*)::int AS n FROM model_stats_dirty')).rows[0].n,
      (n) => n === 0,
      30_000,
    );

  it('ranks the models a project used by its own spans and scores, for each objective, and says why', async () => {
    for (const model of Object.keys(PROFILES) as (keyof typeof PROFILES)[]) {
      expect((await write(stack, tenant.apiKey, NATIVE_TRACES, calls(model, 'r'))).status).toBe(201);
      const scored = await write(stack, tenant.apiKey, SCORES, {
        scores: Array.from({ length: CALLS }, (_, i) => ({
          traceId: `r-${model}-trace-${i}`,
          spanId: `r-${model}-call-${i}`,
          name: 'quality',
          value: PROFILES[model].quality,
        })),
      });
      expect(scored.status).toBe(201);
    }
    const all = ['cheap', 'fast', 'smart'];
    // Stats are counted shortly after the rows are written.
    await eventually(
      () => route({ candidates: all, scoreName: 'quality' }),
      (r) => r.body.candidates?.every((c: any) => c.stats.calls === CALLS && c.stats.scores === CALLS),
      30_000,
    );

    const byCost = await route({ candidates: all, objective: 'cost' });
    expect(byCost.status).toBe(200);
    expect(byCost.body.model).toBe('cheap');
    expect(byCost.body.reason).toMatch(/^cheap: p95 \d{3,4} ms, \$0\.0001\/call over 12 calls in 24 h \(best cost\)$/);
    const cheap = byCost.body.candidates.find((c: any) => c.model === 'cheap');
    expect(cheap).toMatchObject({
      eligible: true,
      rank: 1,
      stats: { calls: 12, errorRate: 0, meanCostUsd: 0.0001, promptTokens: 240, completionTokens: 120 },
    });
    expect(Math.abs(cheap.stats.p50LatencyMs - 1_000) / 1_000).toBeLessThan(0.1);

    expect((await route({ candidates: all, objective: 'latency' })).body.model).toBe('fast');
    const byQuality = await route({ candidates: all, objective: 'quality', scoreName: 'quality' });
    expect(byQuality.body.model).toBe('smart');
    expect(byQuality.body.candidates.find((c: any) => c.model === 'smart').stats.meanScore).toBeCloseTo(0.95);

    const capped = await route({ candidates: all, objective: 'quality', scoreName: 'quality', constraints: { maxP95LatencyMs: 1_500 } });
    expect(capped.body.model).toBe('fast');
    expect(capped.body.reason).toMatch(/; smart excluded: p95 2,\d{3} ms > maxP95LatencyMs 1,500$/);
    expect(capped.body.candidates.find((c: any) => c.model === 'smart')).toMatchObject({ eligible: false, rank: null });

    const withNewcomer = await route({ candidates: ['newcomer', ...all], objective: 'cost' });
    expect(withNewcomer.body.candidates.find((c: any) => c.model === 'newcomer')).toMatchObject({
      eligible: true,
      rank: 4,
      stats: { calls: 0 },
    });
    expect(withNewcomer.body.reason).toContain('newcomer ranked last: no calls in 24 h');
  }, 120_000);

  it('keeps model stats equal to a recount after a rebuild of the telemetry and of the stats themselves', async () => {
    await settled();
    const before = await statsTables();
    expect(before.stats.length).toBe(3);
    expect((await runCli(['rebuild', '--json'], stack.env)).code).toBe(0);
    await settled();
    expect(await statsTables()).toEqual(before);
    await stack.db.query(`UPDATE model_stats SET calls = 999`);
    const rebuilt = await runCli(['rebuild', '--projection', 'model-stats', '--json'], stack.env);
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ projection: 'model-stats' });
    await settled();
    expect(await statsTables()).toEqual(before);
  }, 120_000);

  it('drops the stats of spans retention deleted', async () => {
    expect((await write(stack, free.apiKey, NATIVE_TRACES, calls('cheap', 'free'))).status).toBe(201);
    const countOf = async () =>
      (await stack.db.query('SELECT coalesce(sum(calls), 0)::int AS n FROM model_stats WHERE project_id = $1', [free.projectId])).rows[0].n;
    await eventually(countOf, (n) => n === CALLS, 30_000);
    expect(
      (await runCli(['admin', 'retention', 'run', '--now', new Date(Date.now() + 8 * DAY_MS).toISOString(), '--json'], stack.env)).code,
    ).toBe(0);
    await eventually(countOf, (n) => n === 0, 30_000);
  }, 120_000);

  it('answers 400 naming the field, 413 past 512 KB, 401 without a valid key, and the rate-limit headers', async () => {
    const ok = await route({ candidates: ['cheap'] });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit-limit')).toBe('1000');
    expect(ok.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(ok.headers.get('ratelimit-reset')).toMatch(/^\d+$/);

    const bad = await route({ candidates: ['cheap'], objective: 'cheapest' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining('body.objective') });
    expect((await route({ candidates: [] })).body.error.message).toContain('body.candidates');

    const big = await route({ candidates: ['cheap'], scoreName: 'q', padding: 'x'.repeat(600 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await write(stack, null, '/api/v1/route-model', { candidates: ['cheap'] })).status).toBe(401);
    expect((await write(stack, 'sl_unknown', '/api/v1/route-model', { candidates: ['cheap'] })).status).toBe(401);
  });
});
