import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type SpanDelta, type SpanFields, buildOverview, stamped, versionOf } from '@app/domain';
import { ProjectionCheckpoints } from '@app/persistence';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { readOverviewSums, readWindowSums } from '../stats/overview-stats-store';
import { writeTelemetry } from '../telemetry/tables/telemetry-writer';
import { modelStatsProjection } from './model-stats.projection';
import { rebuildModelStats } from './rebuild-model-stats';

const projectId = randomUUID();
const traceId = randomUUID();
const START = '2024-03-01T10:20:00.000Z';
const END = '2024-03-01T10:20:00.250Z';

const span = (n: number, fields: Partial<SpanFields>): SpanDelta => ({
  projectId,
  id: randomUUID(),
  otelSpanId: null,
  externalId: null,
  createdAt: START,
  ...stamped<SpanFields>({ traceId, startTime: START, endTime: END, ...fields }, versionOf(START, `e${n}`)),
});

/** Issue 26: the overview's stats by operation, and LLM calls counted by it, after the upgrade's recount (model-stats version 3). */
describe('overview stats by operation', () => {
  const db = useTestDatabase();
  let ds: DataSource;

  beforeAll(() => {
    ds = db.ds;
  });

  it('recounts stats counted without the operation into one row per operation, and counts LLM calls by it', async () => {
    const spans = [
      span(1, { type: 'LLM', operation: 'chat', model: 'gpt-4o', cost: 0.25, totalTokens: 30 }),
      span(2, { type: 'LLM', operation: 'chat', model: 'gpt-4o', level: 'ERROR' }),
      // gen_ai.* keys make these LLM (SPEC 2.3 row 2); their operation says what they are.
      span(3, { type: 'LLM', operation: 'execute_tool', input: { city: 'Paris' } }),
      span(4, { type: 'LLM', operation: 'invoke_agent' }),
      span(5, { type: 'LLM', model: 'legacy' }),
      span(6, { type: 'CHAIN' }),
    ];
    await ds.transaction((m) => writeTelemetry(m, { traces: [], spans, scores: [], runItems: [], deletions: [], scoreDeletions: [] }));
    // The bucket as version 2 counted it (no operation), and the version that counted it.
    await ds.query(
      `INSERT INTO span_stats_5m (project_id, bucket, span_type, model, trace_name, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens)
       VALUES ($1, '2024-03-01T10:20:00Z', 'LLM', '', '', 5, 1, '{}', 0.25, 0, 0, 30)`,
      [projectId],
    );
    await ds.query(
      `INSERT INTO projection_versions (projection, version) VALUES ($1, 2) ON CONFLICT (projection) DO UPDATE SET version = 2`,
      [modelStatsProjection.name],
    );

    await rebuildModelStats(ds);
    expect(await new ProjectionCheckpoints(ds).servingVersion(modelStatsProjection.name)).toBeGreaterThanOrEqual(3);

    const stored = await ds.query(
      'SELECT operation, span_type, sum(calls)::int AS calls FROM span_stats_5m WHERE project_id = $1 GROUP BY 1, 2 ORDER BY 1, 2',
      [projectId],
    );
    expect(stored).toEqual([
      { operation: '', span_type: 'CHAIN', calls: 1 },
      { operation: '', span_type: 'LLM', calls: 1 },
      { operation: 'chat', span_type: 'LLM', calls: 2 },
      { operation: 'execute_tool', span_type: 'LLM', calls: 1 },
      { operation: 'invoke_agent', span_type: 'LLM', calls: 1 },
    ]);

    const range = { fromMs: Date.parse('2024-03-01T10:00:00Z'), toMs: Date.parse('2024-03-01T11:00:00Z'), bucketSeconds: 300 };
    const overview = buildOverview(
      range,
      await readOverviewSums(ds, projectId, new Date(range.fromMs), new Date(range.toMs), range.bucketSeconds),
    );
    expect(overview.spanTypes.find((t) => t.spanType === 'LLM')?.calls).toBe(5);
    expect(overview.llmCalls).toBe(3);
    expect(overview.operations).toEqual([
      {
        operation: null,
        calls: 2,
        errors: 0,
        errorRate: 0,
        costUsd: 0,
        tokens: 0,
        latencyP50Ms: expect.any(Number),
        latencyP95Ms: expect.any(Number),
      },
      {
        operation: 'chat',
        calls: 2,
        errors: 1,
        errorRate: 0.5,
        costUsd: 0.25,
        tokens: 30,
        latencyP50Ms: expect.any(Number),
        latencyP95Ms: expect.any(Number),
      },
      {
        operation: 'execute_tool',
        calls: 1,
        errors: 0,
        errorRate: 0,
        costUsd: 0,
        tokens: 0,
        latencyP50Ms: expect.any(Number),
        latencyP95Ms: expect.any(Number),
      },
      {
        operation: 'invoke_agent',
        calls: 1,
        errors: 0,
        errorRate: 0,
        costUsd: 0,
        tokens: 0,
        latencyP50Ms: expect.any(Number),
        latencyP95Ms: expect.any(Number),
      },
    ]);
    expect(Math.abs((overview.operations[1].latencyP50Ms as number) - 250) / 250).toBeLessThan(0.091);

    // A monitor's window by operation, in any case, with the other dimensions.
    const window = (filter: Record<string, string>) => readWindowSums(ds, projectId, new Date(range.fromMs), new Date(range.toMs), filter);
    expect((await window({ operation: 'CHAT' })).spans).toMatchObject({ calls: 2, errors: 1 });
    expect((await window({ operation: 'execute_tool', spanType: 'LLM' })).spans).toMatchObject({ calls: 1 });
    expect((await window({ operation: 'chat', model: 'legacy' })).spans).toBeNull();
  });
});
