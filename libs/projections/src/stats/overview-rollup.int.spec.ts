import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { type LatencyHistogram, type OverviewSums, buildOverview, mergeHistograms, overviewTotals } from '@app/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { eventually } from '../../../../test/support/api';
import { rebuildModelStats } from '../model-stats/rebuild-model-stats';
import { deleteTraces } from '../telemetry/tables/telemetry-writer';
import {
  markAllOverviewStatsDirty,
  readOverviewSums,
  readUnpricedUsage,
  readWindowSums,
  refreshDirtyOverviewStats,
} from './overview-stats-store';
import { commitAfterFirstStatement } from './testing/commit-between-statements';

const HOUR_MS = 3_600_000;
const at = (iso: string) => new Date(iso);

/** Each hourly roll-up, and how its rows add up from the 5-minute stats (the rule, restated here in JS). */
const ROLLUPS = [
  {
    table: 'span_stats',
    keys: ['span_type', 'model', 'operation'],
    sums: ['calls', 'errors', 'cost_usd', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'unpriced_calls'],
  },
  { table: 'trace_stats', keys: [], sums: ['traces'] },
  { table: 'score_stats', keys: ['trace_name', 'source', 'name'], sums: ['scores', 'numeric_scores', 'value_sum', 'judged', 'passed'] },
  { table: 'unpriced_stats', keys: ['model', 'usage_type'], sums: ['spans'] },
];

type Row = Record<string, unknown>;
const num = (v: unknown) => Number(Number(v).toPrecision(12));

/** A table's rows as comparable objects, sorted by their key. */
function normalized(rows: Row[], keys: string[], sums: string[]): Row[] {
  return rows
    .map((r) => {
      const out: Row = { bucket: (r.bucket as Date).toISOString() };
      for (const k of keys) out[k] = r[k];
      for (const s of sums) out[s] = num(r[s]);
      if (r.latency_hist) out.latency_hist = r.latency_hist;
      if (r.first_seen)
        Object.assign(out, { first_seen: (r.first_seen as Date).toISOString(), last_seen: (r.last_seen as Date).toISOString() });
      return out;
    })
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** The 5-minute rows of a project's stats added up per hour, as its roll-up must hold them. */
function rolledUp(rows: Row[], keys: string[], sums: string[]): Row[] {
  const hours = new Map<string, Row>();
  for (const r of rows) {
    const bucket = new Date(Math.floor((r.bucket as Date).getTime() / HOUR_MS) * HOUR_MS);
    const id = JSON.stringify([bucket, ...keys.map((k) => r[k])]);
    const h = hours.get(id);
    if (!h) {
      hours.set(id, { ...r, bucket });
      continue;
    }
    for (const s of sums) h[s] = Number(h[s]) + Number(r[s]);
    if (r.latency_hist) h.latency_hist = mergeHistograms([h.latency_hist as LatencyHistogram, r.latency_hist as LatencyHistogram]);
    if (r.first_seen) {
      h.first_seen = new Date(Math.min((h.first_seen as Date).getTime(), (r.first_seen as Date).getTime()));
      h.last_seen = new Date(Math.max((h.last_seen as Date).getTime(), (r.last_seen as Date).getTime()));
    }
  }
  return normalized([...hours.values()], keys, sums);
}

/** A 5-minute read's series points added up per `stepMs`, as one read at that width gives them. */
function coarser(sums: OverviewSums, stepMs: number): OverviewSums {
  const point = (t: number) => Math.floor(t / stepMs) * stepMs;
  const series = new Map<number, OverviewSums['series'][number]>();
  for (const s of sums.series) {
    const p = series.get(point(s.t));
    if (!p) {
      series.set(point(s.t), { ...s, t: point(s.t) });
      continue;
    }
    for (const k of ['calls', 'errors', 'costUsd', 'promptTokens', 'completionTokens', 'totalTokens', 'unpricedCalls'] as const)
      p[k] += s[k];
    p.latency = mergeHistograms([p.latency, s.latency]);
  }
  const traces = new Map<number, number>();
  for (const s of sums.traces) traces.set(point(s.t), (traces.get(point(s.t)) ?? 0) + s.traces);
  return { ...sums, series: [...series.values()], traces: [...traces].map(([t, n]) => ({ t, traces: n })) };
}

/** Issue 33: long ranges read hourly roll-ups of the 5-minute stats, which answer the same as the buckets they sum. */
describe('hourly roll-ups of the overview stats', () => {
  const db = useTestDatabase();

  const recountAll = async () => {
    while ((await refreshDirtyOverviewStats(db.ds, 1_000)) > 0);
  };

  /** Whether every roll-up of the project equals its 5-minute rows added up per hour. */
  const expectRolledUp = async (projectId: string) => {
    for (const { table, keys, sums } of ROLLUPS) {
      const read = (suffix: string) => db.ds.query(`SELECT * FROM ${table}_${suffix} WHERE project_id = $1`, [projectId]);
      expect({ table, rows: normalized(await read('1h'), keys, sums) }).toEqual({ table, rows: rolledUp(await read('5m'), keys, sums) });
    }
  };

  /**
   * Spans, traces and scores of one project from 09:50 to 14:20: three trace names, types,
   * models, operations, errors, costs that are not exact in binary, unpriced usage.
   */
  const seed = async (): Promise<string> => {
    const { projectId } = await seedProject(db.ds);
    await db.ds.query(
      `INSERT INTO traces (project_id, id, name, first_event_time, created_at)
       SELECT $1::uuid, md5($1::text || i)::uuid, (ARRAY['chat', 'rag', NULL])[1 + i % 3], t, t
         FROM generate_series(0, 59) i, LATERAL (SELECT timestamptz '2024-03-01T09:50:00Z' + i * interval '4 minutes 31 seconds' AS t) x`,
      [projectId],
    );
    await db.ds.query(
      `INSERT INTO spans (project_id, id, trace_id, name, type, model, operation, level, cost, prompt_tokens, completion_tokens, unpriced_usage, start_time, end_time, created_at)
       SELECT $1::uuid, gen_random_uuid(), md5($1::text || (i % 60))::uuid, 'step', (ARRAY['LLM', 'TOOL', 'CHAIN'])[1 + i % 3], (ARRAY['gpt-4o', 'claude', NULL])[1 + i % 4 % 3],
              (ARRAY['chat', NULL])[1 + i % 2], CASE WHEN i % 7 = 0 THEN 'ERROR' ELSE 'DEFAULT' END, 0.1 * (i % 5), i, 2 * i,
              CASE WHEN i % 4 = 0 THEN ARRAY['audio'] END, t, t + (i % 13) * interval '37 milliseconds', t
         FROM generate_series(0, 299) i, LATERAL (SELECT timestamptz '2024-03-01T09:50:00Z' + i * interval '54 seconds' AS t) x`,
      [projectId],
    );
    await db.ds.query(
      `INSERT INTO scores (project_id, id, trace_id, name, value, data_type, metadata, source, "timestamp", created_at)
       SELECT $1::uuid, gen_random_uuid(), md5($1::text || (i % 60))::uuid, 'quality', to_jsonb(0.1 * (i % 10)), 'NUMERIC', jsonb_build_object('pass', i % 3 > 0), 'EVAL', t, t
         FROM generate_series(0, 89) i, LATERAL (SELECT timestamptz '2024-03-01T09:50:00Z' + i * interval '3 minutes' AS t) x`,
      [projectId],
    );
    await markAllOverviewStatsDirty(db.ds);
    await recountAll();
    return projectId;
  };

  it('holds each hour as the sum of its 5-minute stats, and answers long ranges as the 5-minute stats do', async () => {
    const projectId = await seed();
    await expectRolledUp(projectId);
    expect((await db.ds.query('SELECT count(*)::int AS n FROM span_stats_1h WHERE project_id = $1', [projectId]))[0].n).toBeGreaterThan(0);

    // Edges within hours and on them; points of one and two hours.
    const ranges = [
      { fromMs: Date.parse('2024-03-01T09:35:00Z'), toMs: Date.parse('2024-03-01T13:25:00Z'), bucketSeconds: 3600 },
      { fromMs: Date.parse('2024-03-01T10:00:00Z'), toMs: Date.parse('2024-03-01T14:00:00Z'), bucketSeconds: 7200 },
      { fromMs: Date.parse('2024-03-01T09:55:00Z'), toMs: Date.parse('2024-03-01T14:20:00Z'), bucketSeconds: 3600 },
      { fromMs: Date.parse('2024-03-01T10:10:00Z'), toMs: Date.parse('2024-03-01T10:50:00Z'), bucketSeconds: 3600 },
    ];
    for (const range of ranges) {
      const read = (bucketSeconds: number) =>
        readOverviewSums(db.ds, projectId, new Date(range.fromMs), new Date(range.toMs), bucketSeconds);
      const fiveMinutes = coarser(await read(300), range.bucketSeconds * 1000);
      expect({ range, overview: buildOverview(range, await read(range.bucketSeconds)) }).toEqual({
        range,
        overview: buildOverview(range, fiveMinutes),
      });
    }
    // A monitor's window, also by trace name (which the hourly span stats do not keep).
    const window = { from: at('2024-03-01T09:45:00Z'), to: at('2024-03-01T13:10:00Z') };
    const spansIn = async (traceName: string | null) =>
      (
        await db.ds.query(
          `SELECT count(*)::int AS n FROM spans s JOIN traces t ON t.project_id = s.project_id AND t.id = s.trace_id
            WHERE s.project_id = $1 AND s.model = 'gpt-4o' AND s.start_time >= $2 AND s.start_time < date_bin('5 minutes', $3::timestamptz, 'epoch')
              AND ($4::text IS NULL OR t.name = $4)`,
          [projectId, window.from, window.to, traceName],
        )
      )[0].n;
    expect((await readWindowSums(db.ds, projectId, window.from, window.to, { model: 'gpt-4o' })).spans?.calls).toBe(await spansIn(null));
    expect((await readWindowSums(db.ds, projectId, window.from, window.to, { model: 'gpt-4o', traceName: 'rag' })).spans?.calls).toBe(
      await spansIn('rag'),
    );
    const [unpriced] = await readUnpricedUsage(db.ds, projectId, null, null);
    expect(unpriced).toMatchObject({
      usageType: 'audio',
      typeSpans: 75,
      firstSeen: '2024-03-01T09:50:00.000Z',
      lastSeen: '2024-03-01T14:16:24.000Z',
    });

    // The whole hours are read from the roll-ups: a 5-minute row of one changes the 5-minute read only.
    const range = ranges[0];
    const sumsAt = async (bucketSeconds: number) =>
      (await readOverviewSums(db.ds, projectId, new Date(range.fromMs), new Date(range.toMs), bucketSeconds)).spanTypes;
    const [hourly, buckets] = [await sumsAt(3600), await sumsAt(300)];
    await db.ds.query(`UPDATE span_stats_5m SET calls = calls + 1000 WHERE project_id = $1 AND bucket = '2024-03-01T11:30:00Z'`, [
      projectId,
    ]);
    expect(await sumsAt(3600)).toEqual(hourly);
    expect(await sumsAt(300)).not.toEqual(buckets);
  });

  it('loses neither of two recounts of buckets of one hour that run at once', async () => {
    const { projectId } = await seedProject(db.ds);
    const spans = (at: string) =>
      db.ds.query(
        `INSERT INTO spans (project_id, id, trace_id, type, model, start_time, end_time, created_at) VALUES ($1, gen_random_uuid(), gen_random_uuid(), 'LLM', 'gpt-4o', $2, $2, $2)`,
        [projectId, at],
      );
    await spans('2024-05-01T10:05:00Z');
    await spans('2024-05-01T10:40:00Z');
    await db.ds.query(`INSERT INTO stats_5m_dirty (project_id, bucket) VALUES ($1, '2024-05-01T10:05:00Z'), ($1, '2024-05-01T10:40:00Z')`, [
      projectId,
    ]);
    // Both recounts wait with their 5-minute rows written, before their hour's roll-up, until the table is free.
    const blocker = db.ds.createQueryRunner();
    await blocker.startTransaction();
    await blocker.query('LOCK TABLE span_stats_1h IN ACCESS EXCLUSIVE MODE');
    const recounts = [refreshDirtyOverviewStats(db.ds, 1), refreshDirtyOverviewStats(db.ds, 1)];
    await eventually(
      async () =>
        (
          await db.ds.query(
            `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          )
        )[0].n,
      (n) => n === 2,
    );
    await blocker.commitTransaction();
    await blocker.release();
    expect(await Promise.all(recounts)).toEqual([1, 1]);
    expect(await db.ds.query('SELECT bucket, calls FROM span_stats_1h WHERE project_id = $1', [projectId])).toEqual([
      { bucket: at('2024-05-01T10:00:00Z'), calls: 2 },
    ]);
    await expectRolledUp(projectId);
  });

  it('follows a deletion once its buckets are recounted, and keeps no hour without 5-minute stats after a rebuild', async () => {
    const projectId = await seed();
    const traceIds: { id: string }[] = await db.ds.query(
      `SELECT id FROM traces WHERE project_id = $1 AND "timestamp" >= '2024-03-01T11:00:00Z' AND "timestamp" < '2024-03-01T11:30:00Z'`,
      [projectId],
    );
    const hourBefore = (
      await db.ds.query(`SELECT traces FROM trace_stats_1h WHERE project_id = $1 AND bucket = '2024-03-01T11:00:00Z'`, [projectId])
    )[0].traces;
    await db.ds.transaction((m) =>
      deleteTraces(
        m,
        traceIds.map(({ id }) => ({ projectId, id, deletedAt: '2024-04-01T00:00:00Z' })),
      ),
    );
    await recountAll();
    await expectRolledUp(projectId);
    expect(
      (await db.ds.query(`SELECT traces FROM trace_stats_1h WHERE project_id = $1 AND bucket = '2024-03-01T11:00:00Z'`, [projectId]))[0]
        .traces,
    ).toBe(hourBefore - traceIds.length);

    // Roll-ups of an hour with no 5-minute stats, as an older recount or a lost table could leave them.
    const orphan = '2024-02-01T08:00:00Z';
    await db.ds.query(
      `INSERT INTO span_stats_1h (project_id, bucket, span_type, model, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens, unpriced_calls)
       VALUES ($1, $2, 'LLM', '', '', 5, 0, '{}', 0, 0, 0, 0, 0)`,
      [projectId, orphan],
    );
    await db.ds.query(`INSERT INTO trace_stats_1h (project_id, bucket, traces) VALUES ($1, $2, 5)`, [projectId, orphan]);
    await db.ds.query(
      `INSERT INTO score_stats_1h (project_id, bucket, trace_name, source, name, scores, numeric_scores, value_sum, judged, passed) VALUES ($1, $2, '', 'API', 'q', 1, 1, 1, 0, 0)`,
      [projectId, orphan],
    );
    await db.ds.query(
      `INSERT INTO unpriced_stats_1h (project_id, bucket, model, usage_type, spans, first_seen, last_seen) VALUES ($1, $2, 'm', 'audio', 1, $2, $2)`,
      [projectId, orphan],
    );
    await rebuildModelStats(db.ds);
    await expectRolledUp(projectId);
    for (const { table } of ROLLUPS) {
      expect(await db.ds.query(`SELECT * FROM ${table}_1h WHERE project_id = $1 AND bucket = $2`, [projectId, orphan])).toEqual([]);
    }
  });

  it('reads a range with no whole hour, or points narrower than an hour, from the 5-minute stats alone', async () => {
    const projectId = randomUUID();
    await db.ds.query(
      `INSERT INTO span_stats_5m (project_id, bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens)
       VALUES ($1, '2024-03-01T10:20:00Z', 'LLM', '', '', '', 3, 0, '{}', 0, 0, 0, 0)`,
      [projectId],
    );
    for (const [from, to, bucketSeconds] of [
      ['2024-03-01T10:10:00Z', '2024-03-01T10:50:00Z', 3600],
      ['2024-03-01T09:00:00Z', '2024-03-01T12:00:00Z', 1800],
    ] as const) {
      expect((await readOverviewSums(db.ds, projectId, at(from), at(to), bucketSeconds)).spanTypes).toMatchObject([
        { spanType: 'LLM', calls: 3 },
      ]);
    }
  });

  describe('a read of several statements sees one snapshot, whatever a recount commits between them', () => {
    const bucket = '2024-03-01T10:20:00Z';
    const from = at('2024-03-01T10:10:00Z');
    const to = at('2024-03-01T10:50:00Z');

    const recountAfterFirstStatement = (recount: () => Promise<void>) => commitAfterFirstStatement(db.ds, recount);

    const spanStats = (projectId: string, calls: number, unpricedCalls: number, on: Pick<EntityManager, 'query'> = db.ds) =>
      on.query(
        `INSERT INTO span_stats_5m (project_id, bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens, unpriced_calls)
         VALUES ($1, $2, 'LLM', 'gpt-4o', '', '', $3, 0, '{}', 0, 0, 0, 0, $4)`,
        [projectId, bucket, calls, unpricedCalls],
      );

    it("the overview: a bucket's trace and spans together, or neither", async () => {
      const projectId = randomUUID();
      const read = recountAfterFirstStatement(async () => {
        await spanStats(projectId, 2, 0);
        await db.ds.query('INSERT INTO trace_stats_5m (project_id, bucket, traces) VALUES ($1, $2, 1)', [projectId, bucket]);
      });
      const range = { fromMs: at('2024-03-01T10:00:00Z').getTime(), toMs: at('2024-03-01T11:00:00Z').getTime(), bucketSeconds: 300 };
      const totals = async (source: DataSource) =>
        overviewTotals(buildOverview(range, await readOverviewSums(source, projectId, new Date(range.fromMs), new Date(range.toMs), 300)));
      expect(await totals(read.ds)).toMatchObject({ traces: 0, spans: 0 });
      expect(read.committed()).toBe(true);
      expect(await totals(db.ds)).toMatchObject({ traces: 1, spans: 2 });
    });

    it("a monitor's window: a bucket's spans and scores together, or neither", async () => {
      const projectId = randomUUID();
      const read = recountAfterFirstStatement(async () => {
        await spanStats(projectId, 2, 0);
        await db.ds.query(
          `INSERT INTO score_stats_5m (project_id, bucket, trace_name, source, name, scores, numeric_scores, value_sum, judged, passed)
           VALUES ($1, $2, '', 'API', 'quality', 1, 1, 0.5, 0, 0)`,
          [projectId, bucket],
        );
      });
      expect(await readWindowSums(read.ds, projectId, from, to, {})).toEqual({ spans: null, scores: [] });
      expect(read.committed()).toBe(true);
      const now = await readWindowSums(db.ds, projectId, from, to, {});
      expect(now.spans?.calls).toBe(2);
      expect(now.scores).toMatchObject([{ name: 'quality', scores: 1 }]);
    });

    it("the unpriced usage: a bucket's unpriced types and its spans' count from the same recount", async () => {
      const projectId = randomUUID();
      const recountWith = (spans: number) =>
        db.ds.transaction(async (m) => {
          await m.query('DELETE FROM unpriced_stats_5m WHERE project_id = $1', [projectId]);
          await m.query('DELETE FROM span_stats_5m WHERE project_id = $1', [projectId]);
          await m.query(
            `INSERT INTO unpriced_stats_5m (project_id, bucket, model, usage_type, spans, first_seen, last_seen)
             VALUES ($1, $2, 'gpt-4o', 'audio', $3, $2, $2)`,
            [projectId, bucket, spans],
          );
          await spanStats(projectId, spans, spans, m);
        });
      await recountWith(3);
      const read = recountAfterFirstStatement(() => recountWith(5));
      expect(await readUnpricedUsage(read.ds, projectId, from, to)).toMatchObject([{ usageType: 'audio', typeSpans: 3, modelSpans: 3 }]);
      expect(read.committed()).toBe(true);
      expect(await readUnpricedUsage(db.ds, projectId, from, to)).toMatchObject([{ usageType: 'audio', typeSpans: 5, modelSpans: 5 }]);
    });
  });
});
