import fc from 'fast-check';
import { DomainError } from '../errors';
import { type LatencyHistogram, latencyBucketOf } from '../model-stats/latency-histogram';
import { type ObservedModel, routeModel, validateRouteModelRequest } from './route-model';

const latencies = (...ms: number[]): LatencyHistogram => {
  const h: LatencyHistogram = {};
  for (const l of ms) h[latencyBucketOf(l)] = (h[latencyBucketOf(l)] ?? 0) + 1;
  return h;
};

const observed = (o: {
  calls: number;
  ms: number;
  cost: number;
  meanScore?: number;
  passRate?: number;
  errors?: number;
}): ObservedModel => ({
  calls: o.calls,
  errors: o.errors ?? 0,
  latency: latencies(...Array.from({ length: o.calls }, () => o.ms)),
  costedCalls: o.calls,
  costUsd: o.cost * o.calls,
  promptTokens: 10 * o.calls,
  completionTokens: 5 * o.calls,
  quality: {
    scores: o.calls,
    numericScores: o.meanScore === undefined ? 0 : o.calls,
    valueSum: (o.meanScore ?? 0) * o.calls,
    judged: o.passRate === undefined ? 0 : o.calls,
    passed: Math.round((o.passRate ?? 0) * o.calls),
  },
});

const stats = new Map<string, ObservedModel>([
  ['small', observed({ calls: 100, ms: 800, cost: 0.0004, meanScore: 0.6, passRate: 0.7 })],
  ['large', observed({ calls: 50, ms: 2_400, cost: 0.01, meanScore: 0.95, passRate: 0.98 })],
  ['fast', observed({ calls: 80, ms: 150, cost: 0.002, meanScore: 0.7, passRate: 0.8 })],
]);

describe(routeModel.name, () => {
  it.each([
    ['cost', 'small'],
    ['latency', 'fast'],
    ['quality', 'large'],
  ] as const)('picks by %s: %s', (objective, model) => {
    expect(routeModel({ candidates: ['small', 'large', 'fast'], objective }, stats).model).toBe(model);
  });

  it('excludes a model over maxP95LatencyMs and says why, in words a person reads', () => {
    const decision = routeModel({ candidates: ['large', 'small'], objective: 'quality', constraints: { maxP95LatencyMs: 1_500 } }, stats);
    expect(decision.model).toBe('small');
    expect(decision.reason).toMatch(
      /^small: p95 \d{3} ms, \$0\.0004\/call, mean score 0\.6, pass rate 0\.7 over 100 calls in 24 h \(best quality\); large excluded: p95 2,\d{3} ms > maxP95LatencyMs 1,500$/,
    );
    expect(decision.candidates.find((c) => c.model === 'large')).toMatchObject({ eligible: false, rank: null });
  });

  it('ranks a model with no data last, eligible, with the reason saying so', () => {
    const decision = routeModel({ candidates: ['unknown', 'small'], objective: 'cost' }, stats);
    expect(decision.model).toBe('small');
    expect(decision.candidates).toEqual([
      expect.objectContaining({ model: 'unknown', eligible: true, rank: 2, notes: ['no calls in 24 h'] }),
      expect.objectContaining({ model: 'small', eligible: true, rank: 1 }),
    ]);
    expect(decision.reason).toContain('unknown ranked last: no calls in 24 h');
  });

  it('answers no model when every candidate breaks a constraint', () => {
    const decision = routeModel({ candidates: ['small', 'large'], constraints: { minPassRate: 0.99 } }, stats);
    expect(decision.model).toBeNull();
    expect(decision.reason).toMatch(
      /^no candidate meets the constraints; small excluded: pass rate 0\.7 < minPassRate 0\.99; large excluded/,
    );
  });

  it('always ranks every eligible candidate once, 1..n, whatever the stats', () => {
    const model = fc.record({
      calls: fc.integer({ min: 0, max: 1_000 }),
      ms: fc.double({ min: 1, max: 1e6, noNaN: true }),
      cost: fc.double({ min: 0, max: 10, noNaN: true }),
      meanScore: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), model, { minKeys: 1, maxKeys: 6 }),
        fc.constantFrom('cost', 'latency', 'quality', 'balanced' as const),
        (models, objective) => {
          const names = Object.keys(models);
          const seen = new Map(
            Object.entries(models)
              .filter(([, m]) => m.calls > 0)
              .map(([n, m]) => [n, observed(m)]),
          );
          const decision = routeModel({ candidates: names, objective }, seen);
          const ranks = decision.candidates.map((c) => c.rank).sort((a, b) => (a as number) - (b as number));
          expect(ranks).toEqual(names.map((_, i) => i + 1));
          expect(decision.model).toBe(decision.candidates.find((c) => c.rank === 1)?.model);
        },
      ),
    );
  });
});

describe(validateRouteModelRequest.name, () => {
  it('takes the contract shape with its defaults absent', () => {
    expect(validateRouteModelRequest({ candidates: ['a'] })).toMatchObject({ candidates: ['a'] });
    expect(
      validateRouteModelRequest({
        candidates: ['a', 'b'],
        objective: 'cost',
        constraints: { maxCostUsd: 0.1, maxP95LatencyMs: 900, minPassRate: 0.5 },
        scoreName: 'q',
        windowHours: 48,
      }),
    ).toMatchObject({
      constraints: { maxCostUsd: 0.1, maxP95LatencyMs: 900, minPassRate: 0.5 },
    });
  });

  it.each([
    [{}, 'body.candidates'],
    [{ candidates: [] }, 'body.candidates'],
    [{ candidates: ['a', 'a'] }, 'body.candidates'],
    [{ candidates: ['\u0000'] }, 'body.candidates'],
    [{ candidates: ['gpt\ud800'] }, 'body.candidates'],
    [{ candidates: ['a'], objective: 'cheap' }, 'body.objective'],
    [{ candidates: ['a'], constraints: { minPassRate: 2 } }, 'minPassRate'],
    [{ candidates: ['a'], windowHours: 0 }, 'body.windowHours'],
  ])('refuses %j naming %s', (body, field) => {
    expect(() => validateRouteModelRequest(body)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringContaining(field) }),
    );
  });

  it('answers anything with a request or a DomainError', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        try {
          validateRouteModelRequest(body);
        } catch (err) {
          expect(err).toBeInstanceOf(DomainError);
        }
      }),
    );
  });
});
