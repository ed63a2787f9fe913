import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { commitAfterFirstStatement } from '../stats/testing/commit-between-statements';
import { readModelStats } from './model-stats-tables';

describe(readModelStats.name, () => {
  const db = useTestDatabase();
  const hour = '2024-03-01T10:00:00Z';

  /** What a model-stats recount of the hour writes, in one transaction: the calls and the scores. */
  const recountWith = (projectId: string, calls: number) =>
    db.ds.transaction(async (m: EntityManager) => {
      await m.query('DELETE FROM model_score_stats WHERE project_id = $1', [projectId]);
      await m.query('DELETE FROM model_stats WHERE project_id = $1', [projectId]);
      await m.query(
        `INSERT INTO model_stats (project_id, model, hour, calls, errors, timed_calls, latency_sum_ms, latency_hist, costed_calls, cost_usd, prompt_tokens, completion_tokens)
         VALUES ($1, 'gpt-4o', $2, $3, 0, 0, 0, '{}', 0, 0, 0, 0)`,
        [projectId, hour, calls],
      );
      await m.query(
        `INSERT INTO model_score_stats (project_id, model, hour, source, name, scores, numeric_scores, value_sum, judged, passed)
         VALUES ($1, 'gpt-4o', $2, 'API', 'quality', $3, $3, 0, 0, 0)`,
        [projectId, hour, calls],
      );
    });

  it("reads a model's calls and scores from the same recount, whatever commits between its statements", async () => {
    const projectId = randomUUID();
    await recountWith(projectId, 3);
    const read = commitAfterFirstStatement(db.ds, () => recountWith(projectId, 5));
    const during = (await readModelStats(read.ds, projectId, ['gpt-4o'], new Date(hour))).get('gpt-4o');
    expect(read.committed()).toBe(true);
    expect(during).toMatchObject({ calls: 3, scores: [{ name: 'quality', scores: 3 }] });
    const after = (await readModelStats(db.ds, projectId, ['gpt-4o'], new Date(hour))).get('gpt-4o');
    expect(after).toMatchObject({ calls: 5, scores: [{ name: 'quality', scores: 5 }] });
  });
});
