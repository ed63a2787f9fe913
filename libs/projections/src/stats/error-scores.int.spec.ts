import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { markAllModelStatsDirty, refreshDirtyModelStats } from '../model-stats/model-stats-tables';
import { markAllOverviewStatsDirty, refreshDirtyOverviewStats } from './overview-stats-store';

describe('evaluator error scores in the stats', () => {
  const db = useTestDatabase();

  it('count as scores but stay out of means and pass rates (SPEC 6.1 rule 2 errors say nothing of the output)', async () => {
    const { projectId } = await seedProject(db.ds);
    const at = '2026-11-20T12:01:00Z';
    const score = (value: number, metadata: object) =>
      db.ds.query(
        `INSERT INTO scores (project_id, id, trace_id, name, value, data_type, metadata, source, "timestamp", created_at)
         VALUES ($1, $2, $3, 'helpfulness', $4::jsonb, 'NUMERIC', $5::jsonb, 'EVAL', $6, $6)`,
        [projectId, randomUUID(), randomUUID(), JSON.stringify(value), JSON.stringify(metadata), at],
      );
    await score(0.9, { pass: true });
    await score(0.5, { pass: false });
    await score(0, { pass: false, error: true });
    await markAllOverviewStatsDirty(db.ds.manager);
    while ((await refreshDirtyOverviewStats(db.ds, 1_000)) > 0);
    expect(
      await db.ds.query(`SELECT scores, numeric_scores, value_sum, judged, passed FROM score_stats_5m WHERE project_id = $1`, [projectId]),
    ).toEqual([{ scores: 3, numeric_scores: 2, value_sum: 1.4, judged: 2, passed: 1 }]);
  });

  it('stay out of the model stats that routing reads', async () => {
    const { projectId } = await seedProject(db.ds);
    const traceId = randomUUID();
    const spanId = randomUUID();
    const at = '2026-11-20T12:01:00Z';
    await db.ds.query(
      `INSERT INTO spans (project_id, id, trace_id, name, type, model, start_time, end_time, created_at) VALUES ($1, $2, $3, 'chat', 'LLM', 'gpt-4.1-mini', $4, $4, $4)`,
      [projectId, spanId, traceId, at],
    );
    for (const [value, metadata] of [
      [0.8, { pass: true }],
      [0, { pass: false, error: true }],
    ] as const) {
      await db.ds.query(
        `INSERT INTO scores (project_id, id, trace_id, span_id, name, value, data_type, metadata, source, "timestamp", created_at)
         VALUES ($1, $2, $3, $4, 'helpfulness', $5::jsonb, 'NUMERIC', $6::jsonb, 'EVAL', $7, $7)`,
        [projectId, randomUUID(), traceId, spanId, JSON.stringify(value), JSON.stringify(metadata), at],
      );
    }
    await markAllModelStatsDirty(db.ds.manager);
    while ((await refreshDirtyModelStats(db.ds, 1_000)) > 0);
    expect(await db.ds.query(`SELECT * FROM model_score_stats WHERE project_id = $1`, [projectId])).toEqual([
      expect.objectContaining({
        model: 'gpt-4.1-mini',
        name: 'helpfulness',
        scores: 2,
        numeric_scores: 1,
        value_sum: 0.8,
        judged: 1,
        passed: 1,
      }),
    ]);
  });
});
