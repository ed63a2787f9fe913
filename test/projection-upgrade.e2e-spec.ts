import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { modelStatsProjection, telemetryProjection } from '@app/projections';
import { type Tenant, bootstrap, eventually, send } from './support/api';
import { FIXTURES, nativeBatch } from './support/factories';
import { NATIVE_TRACES, OTLP_COLLECTOR_TRACES, SCORES, ingest } from './support/ingest';
import { type Stack, startStack } from './support/stack';

/**
 * DESIGN "Projections", issue 14: a processor whose code builds a newer version of a projection
 * than the one serving rebuilds it by itself, beside the live tables, and swaps it in.
 */
describe('automatic rebuild of an older projection version', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'upgrade@spanlog.test', 'Upgrade', 'p', 'enterprise');
  }, 120_000);

  afterAll(() => stack?.stop());

  const get = (path: string) => send(stack, 'GET', path, { token: tenant.apiKey });
  const servingVersion = async () =>
    (await stack.db.query(`SELECT version FROM projection_versions WHERE projection = 'telemetry'`)).rows[0].version as number;
  /** Every trace of the project as a client reads it, by id. */
  const readAll = async (minSeq = '') => {
    const traces = new Map<string, unknown>();
    let cursor: string | null = null;
    do {
      const page = await get(`/api/v1/traces?limit=100${cursor ? `&cursor=${cursor}` : ''}${minSeq ? `&minSeq=${minSeq}` : ''}`);
      expect(page.status).toBe(200);
      for (const t of page.body.data) {
        const one = await get(`/api/v1/traces/${t.id}`);
        expect(one.status).toBe(200);
        traces.set(t.id, one.body);
      }
      cursor = page.body.meta.nextCursor;
    } while (cursor);
    return traces;
  };

  it('rebuilds the telemetry projection when the code is newer, swaps it in, and answers every read meanwhile with the same traces', async () => {
    for (let i = 0; i < 5; i++) await ingest(stack, tenant.apiKey, NATIVE_TRACES, nativeBatch(2, 3, `upgrade-${i}`));
    await ingest(
      stack,
      tenant.apiKey,
      OTLP_COLLECTOR_TRACES,
      readFileSync(resolve(FIXTURES, 'otlp/openai-agents-2025-09-30.json'), 'utf8'),
    );
    const seq = await ingest(stack, tenant.apiKey, SCORES, {
      scores: [
        { traceId: 'upgrade-0-t0', name: 'quality', value: 0.7 },
        { traceId: 'upgrade-1-t1', name: 'ok', value: true },
      ],
    });
    // A new deployment's tables count as version 1; this code's version may be newer and rebuild them first.
    await eventually(servingVersion, (v) => v === telemetryProjection.version, 60_000);
    const before = await readAll(seq);
    expect(before.size).toBeGreaterThan(10);

    // The live tables as an older version built them: damaged, so only a rebuild gives them back.
    await stack.db.query(`UPDATE projection_versions SET version = 0 WHERE projection = 'telemetry'`);
    await stack.db.query(`UPDATE traces SET name = 'built by version 0' WHERE project_id = $1`, [tenant.projectId]);
    await stack.killProcessor('SIGTERM');

    const statuses: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        statuses.push((await get('/api/v1/traces?limit=5')).status);
        await sleep(20);
      }
    })();
    try {
      await stack.startProcessor();
      await eventually(servingVersion, (v) => v === telemetryProjection.version, 60_000);
    } finally {
      reading = false;
      await reader;
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(await readAll()).toEqual(before);
  }, 180_000);

  it('recounts the overview stats counted before the operation dimension when model-stats is newer (issue 26)', async () => {
    const statsVersion = async () =>
      (await stack.db.query(`SELECT version FROM projection_versions WHERE projection = $1`, [modelStatsProjection.name])).rows[0]
        .version as number;
    const settled = async () => (await stack.db.query('SELECT count(*)::int AS n FROM stats_5m_dirty')).rows[0].n === 0;
    const at = new Date().toISOString();
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        {
          id: 'ops-agent-e',
          type: 'span-create',
          timestamp: at,
          body: { id: 'ops-agent', traceId: 'ops-run', name: 'agent', type: 'AGENT', startTime: at, endTime: at },
        },
        {
          id: 'ops-tool-e',
          type: 'span-create',
          timestamp: at,
          body: { id: 'ops-tool', traceId: 'ops-run', name: 'lookup', type: 'TOOL', startTime: at, endTime: at },
        },
        {
          id: 'ops-chat-e',
          type: 'generation-create',
          timestamp: at,
          body: { id: 'ops-chat', traceId: 'ops-run', name: 'answer', model: 'gpt-4o', startTime: at, endTime: at },
        },
      ],
    });
    const stored = async () =>
      (
        await stack.db.query(
          'SELECT bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, total_tokens FROM span_stats_5m WHERE project_id = $1 ORDER BY 1, 2, 3, 4, 5',
          [tenant.projectId],
        )
      ).rows;
    const operations = (rows: any[]) => rows.map((r) => r.operation);
    await eventually(statsVersion, (v) => v === modelStatsProjection.version, 60_000);
    await eventually(stored, (rows) => ['chat', 'execute_tool', 'invoke_agent'].every((o) => operations(rows).includes(o)), 60_000);
    await eventually(settled, (done) => done, 60_000);
    const before = await stored();

    // The stats as version 2 counted them: no operation.
    await stack.killProcessor('SIGTERM');
    await stack.db.query(
      `WITH old AS (DELETE FROM span_stats_5m WHERE project_id = $1 RETURNING *)
       INSERT INTO span_stats_5m (project_id, bucket, span_type, model, trace_name, operation, calls, errors, latency_hist, cost_usd, prompt_tokens, completion_tokens, total_tokens)
       SELECT project_id, bucket, span_type, model, trace_name, '', sum(calls), sum(errors), '{}', sum(cost_usd), sum(prompt_tokens), sum(completion_tokens), sum(total_tokens)
         FROM old GROUP BY 1, 2, 3, 4, 5`,
      [tenant.projectId],
    );
    await stack.db.query(`UPDATE projection_versions SET version = 2 WHERE projection = $1`, [modelStatsProjection.name]);
    expect(await stored()).not.toEqual(before);

    await stack.startProcessor();
    await eventually(statsVersion, (v) => v === modelStatsProjection.version, 60_000);
    expect(await stored()).toEqual(before);
  }, 180_000);
});
