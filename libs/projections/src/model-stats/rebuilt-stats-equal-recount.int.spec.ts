import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@app/persistence';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { refreshDirtyOverviewStats } from '../stats/overview-stats-store';
import { markAllModelStatsDirty, refreshDirtyModelStats } from './model-stats-tables';
import { modelStatsProjection } from './model-stats.projection';
import { rebuildModelStats } from './rebuild-model-stats';

/** Every stats table, in an order that does not depend on how its rows were written; `updated_at` left out. */
const STATS = {
  model_stats: 'project_id, model, hour',
  model_score_stats: 'project_id, model, hour, source, name',
  span_stats_5m: 'project_id, bucket, span_type, model, trace_name, operation',
  trace_stats_5m: 'project_id, bucket',
  score_stats_5m: 'project_id, bucket, trace_name, source, name',
  unpriced_stats_5m: 'project_id, bucket, model, usage_type',
};

type Row = Record<string, unknown>;

/** A sum of doubles to 12 digits: its last bits depend on the order the plan read the rows in. */
const summed = (v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v);

async function statsOf(ds: DataSource): Promise<Record<string, Row[]>> {
  const tables: Record<string, Row[]> = {};
  for (const [table, key] of Object.entries(STATS)) {
    const rows: Row[] = await ds.query(`SELECT * FROM ${table} ORDER BY ${key}`);
    tables[table] = rows.map(({ updated_at: _, ...row }) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, summed(v)])));
  }
  return tables;
}

/**
 * Spans with and without a model over several hours, in three projects; scores on spans (with
 * and without their trace), on whole traces whose calls share an hour or not, and evaluator
 * error results.
 */
async function writeMixedRows(ds: DataSource): Promise<string[]> {
  const projects = [randomUUID(), randomUUID(), randomUUID()];
  const at = (hour: number, minute: number) => new Date(Date.UTC(2026, 10, 20, hour, minute)).toISOString();
  for (const projectId of projects) {
    for (let t = 0; t < 6; t++) {
      const traceId = randomUUID();
      const hour = 9 + (t % 3);
      await ds.query(`INSERT INTO traces (project_id, id, name, first_event_time, created_at) VALUES ($1, $2, $3, $4, $4)`, [
        projectId,
        traceId,
        `flow-${t % 2}`,
        at(hour, t * 7),
      ]);
      // Two calls of the trace in its hour, one in the next, a tool call without a model.
      const calls: [string | null, string, string | null][] = [
        ['gpt-4o', at(hour, t * 7 + 1), null],
        [t % 2 ? 'claude' : 'gpt-4o', at(hour, t * 7 + 3), t === 3 ? '{audio_tokens}' : null],
        ['gpt-4o', at(hour + 1, t * 5), null],
        [null, at(hour, t * 7 + 2), null],
      ];
      for (const [n, [model, start, unpriced]] of calls.entries()) {
        const spanId = randomUUID();
        await ds.query(
          `INSERT INTO spans (project_id, id, trace_id, name, type, model, level, operation, start_time, end_time, created_at, cost,
                              prompt_tokens, completion_tokens, unpriced_usage)
           VALUES ($1, $2, $3, 'call', $4, $5, $6, $7, $8, $8::timestamptz + $9 * interval '1 millisecond', $8, $10, $11, $12, $13::text[])`,
          [
            projectId,
            spanId,
            traceId,
            model ? 'LLM' : 'TOOL',
            model,
            n === 1 && t === 2 ? 'ERROR' : 'DEFAULT',
            model ? 'chat' : null,
            start,
            40 * (t + n),
            model ? 0.01 * (n + 1) : null,
            model ? 100 + t : null,
            model ? 20 + n : null,
            unpriced,
          ],
        );
        if (n === 0 && t % 2 === 0) {
          await ds.query(
            `INSERT INTO scores (project_id, id, trace_id, span_id, name, value, data_type, source, "timestamp", created_at)
             VALUES ($1, $2, $3, $4, 'relevance', $5::jsonb, 'NUMERIC', 'EVAL', $6, $6)`,
            [projectId, randomUUID(), t === 4 ? null : traceId, spanId, String(0.25 * (t + 1)), start],
          );
        }
      }
      const traceScore = (name: string, value: unknown, metadata: object) =>
        ds.query(
          `INSERT INTO scores (project_id, id, trace_id, name, value, data_type, metadata, source, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, 'BOOLEAN', $6::jsonb, 'API', $7)`,
          [projectId, randomUUID(), traceId, name, JSON.stringify(value), JSON.stringify(metadata), at(hour, 59)],
        );
      await traceScore('correct', t % 3 !== 0, {});
      if (t === 5) await traceScore('correct', false, { error: true });
    }
  }
  return projects;
}

/**
 * A rebuild's recount, 200 buckets a transaction: its cost follows the rows of its buckets, and it
 * gives what one bucket per transaction gives, as the live refresher recounts.
 */
describe('rebuilt stats', () => {
  const db = useTestDatabase();

  // First in the file: no other connection has scanned the tables, so every scan counted is the recount's.
  it('read their rows through indexes only, never a whole table, so a batch costs its buckets, not the tables', async () => {
    await writeMixedRows(db.ds);
    // One connection, whose scans are flushed to the statistics when asked.
    const one = createDataSource({ url: db.url, poolSize: 1 });
    await one.initialize();
    try {
      const seqScans = async () => {
        await one.query('SELECT pg_stat_force_next_flush()');
        const rows: { relname: string; seq_scan: number }[] = await one.query(
          `SELECT relname, seq_scan::int FROM pg_stat_user_tables WHERE relname IN ('spans', 'traces', 'scores') ORDER BY relname`,
        );
        return rows;
      };
      await markAllModelStatsDirty(one);
      const before = await seqScans();
      while ((await refreshDirtyModelStats(one, 200)) > 0);
      while ((await refreshDirtyOverviewStats(one, 200)) > 0);
      expect(await seqScans()).toEqual(before);
    } finally {
      await one.destroy();
    }
  });

  it('equal a recount bucket by bucket on mixed rows, each trace score once per model and hour', async () => {
    const projects = await writeMixedRows(db.ds);
    await markAllModelStatsDirty(db.ds);
    while ((await refreshDirtyModelStats(db.ds, 1)) > 0);
    while ((await refreshDirtyOverviewStats(db.ds, 1)) > 0);
    const bucketByBucket = await statsOf(db.ds);
    expect(bucketByBucket.model_stats.filter((row) => projects.includes(row.project_id as string))).toHaveLength(3 * 7);
    // gpt-4o at 09:00: two calls of trace 0 and one of trace 3; at 10:00 calls of traces 0, 1, 3 and 4 (two of 4). A trace's score counts once an hour.
    expect(
      await db.ds.query(
        `SELECT to_char(hour, 'HH24') AS hour, name, scores, value_sum, judged, passed FROM model_score_stats
          WHERE project_id = $1 AND model = 'gpt-4o' AND hour < '2026-11-20T11:00:00Z' ORDER BY hour, name`,
        [projects[0]],
      ),
    ).toEqual([
      { hour: '09', name: 'correct', scores: 2, value_sum: 0, judged: 2, passed: 0 },
      { hour: '09', name: 'relevance', scores: 1, value_sum: 0.25, judged: 0, passed: 0 },
      { hour: '10', name: 'correct', scores: 4, value_sum: 2, judged: 4, passed: 2 },
      { hour: '10', name: 'relevance', scores: 1, value_sum: 1.25, judged: 0, passed: 0 },
    ]);

    for (const table of modelStatsProjection.tables) await db.ds.query(`DELETE FROM ${table}`);
    await rebuildModelStats(db.ds);
    expect(await statsOf(db.ds)).toEqual(bucketByBucket);
  });
});
