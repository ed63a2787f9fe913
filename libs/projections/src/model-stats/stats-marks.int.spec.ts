import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type SpanDelta, type TelemetryFacts, stamped, versionOf } from '@app/domain';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { refreshDirtyOverviewStats } from '../stats/overview-stats-store';
import { writeTelemetry } from '../telemetry/tables/telemetry-writer';
import { modelStatsKeysOf } from '../telemetry/telemetry.projection';
import { refreshDirtyModelStats } from './model-stats-tables';
import { markModelStatsDirty } from './stats-marks';

const projectId = randomUUID();
const traceId = randomUUID();
const START = '2024-03-01T10:20:00.000Z';
const A_MINUTE = { floorMs: 60_000, msPerRow: 0 };

const llmSpan = (n: number): SpanDelta => ({
  projectId,
  id: randomUUID(),
  otelSpanId: null,
  externalId: null,
  createdAt: START,
  ...stamped(
    { traceId, type: 'LLM', model: 'gpt-4o-mini', startTime: START, endTime: '2024-03-01T10:20:01.000Z' },
    versionOf(START, `e${n}`),
  ),
});
const facts = (spans: SpanDelta[]): TelemetryFacts => ({ traces: [], spans, scores: [], runItems: [], deletions: [], scoreDeletions: [] });
/** A batch as the live apply writes it: the rows, then their buckets marked. */
const apply = (ds: DataSource, spans: SpanDelta[]) =>
  ds.transaction(async (m) => {
    await writeTelemetry(m, facts(spans));
    await markModelStatsDirty(m, modelStatsKeysOf(facts(spans)));
  });

/** The refresher leaves marks alone until they are due at its pace (migration StatsMarkTimes). */
describe('stats marks and their age', () => {
  const db = useTestDatabase();

  const calls = async () =>
    (await db.ds.query('SELECT coalesce(sum(calls), 0)::int AS n FROM model_stats WHERE project_id = $1', [projectId]))[0].n;
  const overviewCalls = async () =>
    (await db.ds.query('SELECT coalesce(sum(calls), 0)::int AS n FROM span_stats_5m WHERE project_id = $1', [projectId]))[0].n;
  const markTimes = async () =>
    db.ds.query(
      `SELECT (SELECT marked_at FROM model_stats_dirty WHERE project_id = $1) AS hourly, (SELECT marked_at FROM stats_5m_dirty WHERE project_id = $1) AS overview`,
      [projectId],
    );
  const age = (seconds: number) =>
    Promise.all(
      ['model_stats_dirty', 'stats_5m_dirty'].map((t) =>
        db.ds.query(`UPDATE ${t} SET marked_at = now() - $2::int * interval '1 second' WHERE project_id = $1`, [projectId, seconds]),
      ),
    );

  it('recounts a bucket only once its first mark is old enough, and a mark made again keeps the first time', async () => {
    await apply(db.ds, [llmSpan(1)]);
    const [first] = await markTimes();
    expect(first.hourly).not.toBeNull();
    expect(first.overview).not.toBeNull();

    expect(await refreshDirtyModelStats(db.ds, 100, A_MINUTE)).toBe(0);
    expect(await refreshDirtyOverviewStats(db.ds, 100, A_MINUTE)).toBe(0);
    expect(await calls()).toBe(0);

    await apply(db.ds, [llmSpan(2)]);
    const [again] = await markTimes();
    expect(again).toEqual(first);

    await age(61);
    expect(await refreshDirtyModelStats(db.ds, 100, A_MINUTE)).toBe(1);
    expect(await refreshDirtyOverviewStats(db.ds, 100, A_MINUTE)).toBe(1);
    expect(await calls()).toBe(2);
    expect(await overviewCalls()).toBe(2);
    expect(await markTimes()).toEqual([{ hourly: null, overview: null }]);
  });

  it('makes a bucket wait longer the more rows it counted last time', async () => {
    // 2 rows counted by the first test, 40 s a row: due 80 s after its first mark, whatever the floor.
    const perRow = { floorMs: 1_000, msPerRow: 40_000 };
    await apply(db.ds, [llmSpan(4)]);
    await age(61);
    expect(await refreshDirtyModelStats(db.ds, 100, perRow)).toBe(0);
    expect(await refreshDirtyOverviewStats(db.ds, 100, perRow)).toBe(0);
    await age(91);
    expect(await refreshDirtyModelStats(db.ds, 100, perRow)).toBe(1);
    expect(await refreshDirtyOverviewStats(db.ds, 100, perRow)).toBe(1);
    expect(await calls()).toBe(3);
    expect(await overviewCalls()).toBe(3);
  });

  it('recounts a fresh mark of a counted bucket at once without a pace (rebuilds)', async () => {
    await apply(db.ds, [llmSpan(3)]);
    expect(await refreshDirtyModelStats(db.ds, 100)).toBe(1);
    expect(await refreshDirtyOverviewStats(db.ds, 100)).toBe(1);
    expect(await calls()).toBe(4);
  });
});
