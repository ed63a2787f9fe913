import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type SpanDelta, stamped, versionOf } from '@app/domain';
import { ProjectionCheckpoints, createDataSource } from '@app/persistence';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { RebuildBusyError } from '../rebuild/rebuild-in-shadow';
import { writeTelemetry } from '../telemetry/tables/telemetry-writer';
import { modelStatsProjection } from './model-stats.projection';
import { rebuildModelStats } from './rebuild-model-stats';

const projectId = randomUUID();
const traceId = randomUUID();

const llmSpan = (model: string, startTime: string, n: number): SpanDelta => ({
  projectId,
  id: randomUUID(),
  otelSpanId: null,
  externalId: null,
  createdAt: startTime,
  ...stamped({ traceId, type: 'LLM', model, startTime, endTime: startTime }, versionOf(startTime, `e${n}`)),
});

/** Two processors seeing the same version bump (ProjectionUpgrader): one recounts, the other is told to look again later. */
describe(rebuildModelStats.name, () => {
  // Declared before the database: jest runs afterAll hooks in declaration order, and these still use it.
  afterAll(async () => {
    await second?.destroy();
  });
  const db = useTestDatabase();
  let first: DataSource;
  let second: DataSource;

  beforeAll(async () => {
    first = db.ds;
    second = createDataSource({ url: db.url, poolSize: 2 });
    await second.initialize();
  });

  const statsOf = (ds: DataSource) =>
    ds.query('SELECT model, hour, calls FROM model_stats WHERE project_id = $1 ORDER BY model, hour', [projectId]);
  const heldRebuildLocks = async () =>
    (
      await first.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      )
    )[0].n;

  it('refuses a second rebuild with RebuildBusyError while the first runs, and the first leaves the stats equal to a recount', async () => {
    const spans = [
      llmSpan('gpt-4o', '2024-03-01T10:20:00.000Z', 1),
      llmSpan('gpt-4o', '2024-03-01T10:40:00.000Z', 2),
      llmSpan('gpt-4o', '2024-03-01T11:05:00.000Z', 3),
      llmSpan('claude', '2024-03-01T10:30:00.000Z', 4),
    ];
    // Rows without their buckets marked, and a stale bucket with no rows behind it: only a rebuild counts them right.
    await first.transaction((m) => writeTelemetry(m, { traces: [], spans, scores: [], runItems: [], deletions: [], scoreDeletions: [] }));
    await first.query(
      `INSERT INTO model_stats (project_id, model, hour, calls, errors, timed_calls, latency_sum_ms, latency_hist, costed_calls, cost_usd, prompt_tokens, completion_tokens)
       VALUES ($1, 'gone', '2024-03-01T09:00:00Z', 9, 0, 0, 0, '{}', 0, 0, 0, 0)`,
      [projectId],
    );

    // Holds the first rebuild inside its lock: its marking reads spans.
    const blocker = first.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    await blocker.query('LOCK TABLE spans IN ACCESS EXCLUSIVE MODE');
    const running = rebuildModelStats(first);
    try {
      for (let tries = 0; (await heldRebuildLocks()) === 0; tries++) {
        if (tries > 100) throw new Error('the first rebuild never took its lock');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await expect(rebuildModelStats(second)).rejects.toBeInstanceOf(RebuildBusyError);
    } finally {
      await blocker.commitTransaction();
      await blocker.release();
    }
    await expect(running).resolves.toMatchObject({
      projection: modelStatsProjection.name,
      version: modelStatsProjection.version,
      buckets: expect.any(Number),
    });

    const expected = [
      { model: 'claude', hour: new Date('2024-03-01T10:00:00Z'), calls: 1 },
      { model: 'gpt-4o', hour: new Date('2024-03-01T10:00:00Z'), calls: 2 },
      { model: 'gpt-4o', hour: new Date('2024-03-01T11:00:00Z'), calls: 1 },
    ];
    expect(await statsOf(first)).toEqual(expected);
    expect(await new ProjectionCheckpoints(first).servingVersion(modelStatsProjection.name)).toBe(modelStatsProjection.version);

    // The lock is let go: the process refused earlier rebuilds when it looks again, to the same counts.
    await expect(rebuildModelStats(second)).resolves.toMatchObject({ projection: modelStatsProjection.name });
    expect(await statsOf(second)).toEqual(expected);
  });
});
