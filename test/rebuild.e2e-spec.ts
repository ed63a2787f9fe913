import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { connect } from 'nats';
import { Client } from 'pg';
import { type RebuildResult, telemetryProjection } from '@app/projections';
import { type Tenant, bootstrap, eventually } from './support/api';
import { FIXTURES } from './support/factories';
import { NATIVE_TRACES, OTLP_COLLECTOR_TRACES, SCORES, ingest, publishToIngest, traceStatus } from './support/ingest';
import { telemetryRows, usageOf } from './support/rows';
import { type Stack, runCli, startStack } from './support/stack';

const DAY_MS = 86_400_000;
const OTLP_FIXTURES = resolve(FIXTURES, 'otlp');

/**
 * `spanlog rebuild` (DESIGN "Projections"): the rebuilt tables equal what the live
 * projections built, nothing deleted comes back, nothing acknowledged during the rebuild
 * is lost, and usage is not counted again.
 */
describe('spanlog rebuild', () => {
  let stack: Stack;
  let free: Tenant;
  let pro: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    free = await bootstrap(stack, 'free-rebuild@spanlog.test', 'Rebuild free', 'p', 'free');
    pro = await bootstrap(stack, 'pro-rebuild@spanlog.test', 'Rebuild pro', 'p', 'pro');
  }, 120_000);

  afterAll(() => stack?.stop());

  const indexNames = async () =>
    (
      await stack.db.query(
        `SELECT tablename, indexname FROM pg_indexes WHERE tablename IN ('traces', 'spans', 'scores') AND schemaname = current_schema() ORDER BY 1, 2`,
      )
    ).rows;
  const usage = async () => (await stack.db.query('SELECT org_id, month, traces, spans FROM usage_counters ORDER BY 1, 2')).rows;
  const tracesCounted = async (orgId: string) => (await usageOf(stack, orgId)).traces;
  const rebuild = async () => {
    const res = await runCli(['rebuild', 'telemetry', '--json'], stack.env);
    if (res.code !== 0) throw new Error(`rebuild failed: ${res.stderr}`);
    return JSON.parse(res.stdout) as RebuildResult;
  };

  /** A trace updated out of order, a span, a score: the merge rule must come out the same on replay. */
  const nativeTrace = (traceId: string, at = new Date()) => {
    const t = (ms: number) => new Date(at.getTime() + ms).toISOString();
    return {
      batch: [
        { id: `${traceId}-update`, type: 'trace-create', timestamp: t(2_000), body: { id: traceId, name: 'renamed later', tags: ['b'] } },
        {
          id: `${traceId}-create`,
          type: 'trace-create',
          timestamp: t(0),
          body: { id: traceId, name: 'first name', userId: 'u-1', metadata: { n: 1 } },
        },
        {
          id: `${traceId}-span`,
          type: 'span-create',
          timestamp: t(0),
          body: { id: `${traceId}-s`, traceId, name: 'llm call', type: 'LLM', startTime: t(0), model: 'gpt-x' },
        },
        {
          id: `${traceId}-span-end`,
          type: 'span-update',
          timestamp: t(1_000),
          body: { id: `${traceId}-s`, traceId, endTime: t(900), output: { text: 'done' } },
        },
        { id: `${traceId}-score`, type: 'score-create', timestamp: t(0), body: { traceId, name: 'quality', value: 0.5 } },
      ],
    };
  };

  let live: Awaited<ReturnType<typeof telemetryRows>>;
  let expiredTrace: string;

  it('rebuilds exactly the rows the live projection built, without the deleted ones and without counting usage again', async () => {
    expiredTrace = `expired-${randomUUID()}`;
    await ingest(stack, free.apiKey, NATIVE_TRACES, nativeTrace(expiredTrace));
    let seq = '';
    for (let i = 0; i < 20; i++) seq = await ingest(stack, pro.apiKey, NATIVE_TRACES, nativeTrace(`kept-${i}-${randomUUID()}`));
    for (const name of readdirSync(OTLP_FIXTURES).filter((n) => n.endsWith('.json') && !n.endsWith('.expected.json'))) {
      seq = await ingest(stack, pro.apiKey, OTLP_COLLECTOR_TRACES, readFileSync(resolve(OTLP_FIXTURES, name), 'utf8'));
    }
    // Scores of the scores endpoint: by native id, by OTel id, twice with one id, and one whose trace never comes.
    expect(
      (await fetch(`${stack.baseUrl}/api/v1/traces?limit=1&minSeq=${seq}`, { headers: { authorization: `Bearer ${pro.apiKey}` } })).status,
    ).toBe(200);
    const otelTrace = (
      await stack.db.query('SELECT otel_trace_id FROM traces WHERE project_id = $1 AND otel_trace_id IS NOT NULL LIMIT 1', [pro.projectId])
    ).rows[0]?.otel_trace_id;
    const keptTrace = (
      await stack.db.query('SELECT external_id FROM traces WHERE project_id = $1 AND external_id IS NOT NULL LIMIT 1', [pro.projectId])
    ).rows[0]?.external_id;
    await ingest(stack, pro.apiKey, SCORES, { id: 'rebuilt-1', traceId: keptTrace, name: 'helpful', value: 0.25 });
    seq = await ingest(stack, pro.apiKey, SCORES, {
      scores: [
        { id: 'rebuilt-1', traceId: keptTrace, name: 'helpful', value: 0.75, comment: 'revised' },
        { traceId: otelTrace, name: 'correct', value: true },
        { traceId: 'never-ingested', name: 'orphan', value: 'kept' },
      ],
    });
    seq = await ingest(stack, free.apiKey, SCORES, { traceId: expiredTrace, name: 'quality', value: 1 });
    expect(await traceStatus(stack, free.apiKey, expiredTrace, seq)).toBe(200);

    // Free keeps 7 days: as of eight days on, its trace is deleted; a late span does not bring it back.
    const retention = await runCli(
      ['admin', 'retention', 'run', '--now', new Date(Date.now() + 8 * DAY_MS).toISOString(), '--json'],
      stack.env,
    );
    expect(retention.code).toBe(0);
    const at = new Date().toISOString();
    seq = await ingest(stack, free.apiKey, NATIVE_TRACES, {
      batch: [
        {
          id: `${expiredTrace}-late`,
          type: 'span-create',
          timestamp: at,
          body: { id: `${expiredTrace}-late-span`, traceId: expiredTrace, name: 'late', startTime: at },
        },
      ],
    });
    expect(await traceStatus(stack, free.apiKey, expiredTrace, seq)).toBe(404);

    live = await telemetryRows(stack);
    expect(live.traces.length).toBeGreaterThan(20);
    expect(live.traces.filter((t) => t.project_id === free.projectId)).toEqual([]);
    const indexesBefore = await indexNames();
    const proTraces = live.traces.filter((t) => t.project_id === pro.projectId).length;
    await eventually(
      () => tracesCounted(pro.orgId),
      (n) => n === proTraces,
    );
    const usageBefore = await usage();

    // Damage the live tables, so that only a rebuild from the stream can give them back.
    await stack.db.query(`UPDATE traces SET name = 'damaged' WHERE project_id = $1`, [pro.projectId]);
    await stack.db.query('DELETE FROM spans WHERE id IN (SELECT id FROM spans LIMIT 5)');

    const result = await rebuild();
    expect(result).toMatchObject({
      projection: 'telemetry',
      version: telemetryProjection.version,
      skipped: 0,
      traces: live.traces.length,
      spans: live.spans.length,
      scores: live.scores.length,
    });
    expect(result.messages).toBeGreaterThan(20);

    expect(await telemetryRows(stack)).toEqual(live);
    expect(await indexNames()).toEqual(indexesBefore);
    expect(await usage()).toEqual(usageBefore);
    expect(await traceStatus(stack, free.apiKey, expiredTrace, seq)).toBe(404);
    const { rows: schemas } = await stack.db.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'spanlog_rebuild%'`);
    expect(schemas).toEqual([]);
    const { rows: checkpoints } = await stack.db.query('SELECT projection, version, seq FROM projection_checkpoints');
    // Read as text, whichever parser of bigint the test process has (importing the projections installs a numeric one).
    expect(checkpoints.map((c) => ({ ...c, seq: String(c.seq) }))).toEqual([
      { projection: 'telemetry', version: telemetryProjection.version, seq: String(result.lastSeq) },
    ]);
  });

  it('loses nothing acknowledged while it runs, and the live projection carries on in the new tables', async () => {
    // A backlog large enough that the rebuild takes a while.
    let seq = '';
    for (let i = 0; i < 150; i++) {
      const batch = Array.from({ length: 10 }, (_, j) => nativeTrace(`backlog-${i}-${j}-${randomUUID()}`).batch).flat();
      seq = await ingest(stack, pro.apiKey, NATIVE_TRACES, { batch });
    }
    await eventually(
      () => traceStatus(stack, pro.apiKey, 'no-such-trace', seq),
      (status) => status === 404,
      60_000,
    );

    const running = rebuild();
    let done = false;
    void running.finally(() => (done = true));
    const acked: { traceId: string; seq: string }[] = [];
    while (!done || acked.length < 10) {
      const traceId = `during-${acked.length}-${randomUUID()}`;
      acked.push({ traceId, seq: await ingest(stack, pro.apiKey, NATIVE_TRACES, nativeTrace(traceId)) });
    }
    const result = await running;
    expect(result.skipped).toBe(0);

    for (const { traceId, seq: ackSeq } of acked) expect(await traceStatus(stack, pro.apiKey, traceId, ackSeq)).toBe(200);
    const { rows } = await stack.db.query(`SELECT count(*)::int AS n FROM traces WHERE project_id = $1 AND name = 'renamed later'`, [
      pro.projectId,
    ]);
    expect(rows[0].n).toBe(20 + 1_500 + acked.length);
    // Each trace counted once: by the live projection, never by the rebuild.
    const stored = (await stack.db.query('SELECT count(*)::int AS n FROM traces WHERE project_id = $1', [pro.projectId])).rows[0].n;
    expect(
      await eventually(
        () => tracesCounted(pro.orgId),
        (n) => n >= stored,
      ),
    ).toBe(stored);
  });

  it('rebuilds usage and audit from their streams: the same rows, each count once after the telemetry rebuilds', async () => {
    // Every column but the times a row was last written, which a rebuild writes anew.
    const plainRows = async () => ({
      counters: (
        await stack.db.query('SELECT org_id, month, traces, spans, eval_runs FROM usage_counters ORDER BY org_id, month COLLATE "C"')
      ).rows,
      applied: (await stack.db.query('SELECT id FROM usage_applied ORDER BY id')).rows,
      audit: (await stack.db.query('SELECT to_jsonb(a) AS row FROM audit_log a ORDER BY id')).rows,
    });
    const stored = (await stack.db.query('SELECT count(*)::int AS n FROM traces WHERE project_id = $1', [pro.projectId])).rows[0].n;
    await eventually(
      () => tracesCounted(pro.orgId),
      (n) => n === stored,
    );
    await eventually(
      async () => (await stack.db.query('SELECT count(*)::int AS n FROM usage_outbox')).rows[0].n,
      (n) => n === 0,
    );
    const before = await plainRows();
    expect(before.audit.length).toBeGreaterThan(0);

    await stack.db.query(`DELETE FROM usage_counters WHERE org_id = $1`, [pro.orgId]);
    await stack.db.query(`UPDATE usage_counters SET traces = traces + 7 WHERE org_id = $1`, [free.orgId]);
    await stack.db.query('DELETE FROM audit_log WHERE ctid = (SELECT ctid FROM audit_log LIMIT 1)');

    const res = await runCli(['rebuild', 'usage', 'audit', '--json'], stack.env);
    expect(res.code).toBe(0);
    const { projections } = JSON.parse(res.stdout) as { projections: Record<string, unknown>[] };
    expect(projections).toMatchObject([
      {
        projection: 'usage',
        version: 1,
        skipped: 0,
        rows: { usage_applied: before.applied.length, usage_counters: before.counters.length },
      },
      { projection: 'audit', version: 1, skipped: 0, rows: { audit_log: before.audit.length } },
    ]);

    expect(await plainRows()).toEqual(before);
    expect(await tracesCounted(pro.orgId)).toBe(stored);
    const { rows: versions } = await stack.db.query(
      `SELECT projection, version FROM projection_versions WHERE projection IN ('usage', 'audit') ORDER BY 1`,
    );
    expect(versions).toEqual([
      { projection: 'audit', version: 1 },
      { projection: 'usage', version: 1 },
    ]);
  });

  it('writes the same rows with its decode in worker threads as in its own thread, and skips the same messages', async () => {
    // Beside what the tests above left (native events, OTLP, scores, a deletion and a tombstoned trace's late span):
    // a request whose chunk lives in the object store, one whose chunk is missing, and one that fails validation.
    const chunked = `chunked-${randomUUID()}`;
    const split = `split-${randomUUID()}`;
    const nc = await connect({ servers: stack.env.NATS_URL });
    try {
      const stored = randomUUID();
      const blobs = await nc.jetstream().views.os(`${stack.streamPrefix}INGEST_BLOBS`);
      await blobs.putBlob({ name: stored }, new TextEncoder().encode(JSON.stringify(nativeTrace(chunked))));
      await publishToIngest(nc, stack, pro, new Uint8Array(), { 'Spanlog-Blob': stored });
      await publishToIngest(nc, stack, pro, new Uint8Array(), { 'Spanlog-Blob': `missing-${randomUUID()}` });
      await publishToIngest(nc, stack, pro, new TextEncoder().encode(JSON.stringify({ batch: 'not a list' })));
      // A generation's model and its usage in messages further apart than a rebuild's batch (256): the worker's batch
      // must tell the write which rows it merged into, to price them as the merged row (issue 28).
      const json = (body: unknown) => new TextEncoder().encode(JSON.stringify(body));
      const at = new Date().toISOString();
      const generation = (type: string, body: Record<string, unknown>) =>
        json({ batch: [{ id: `${type}-${randomUUID()}`, type, timestamp: at, body: { id: split, traceId: chunked, ...body } }] });
      await publishToIngest(nc, stack, pro, generation('generation-create', { name: 'answer', startTime: at, model: 'gpt-4o-mini' }));
      for (let i = 0; i < 260; i++) await publishToIngest(nc, stack, pro, json({ batch: [] }));
      await publishToIngest(nc, stack, pro, generation('generation-update', { usage: { input: 1_000, output: 1_000 } }));
    } finally {
      await nc.close();
    }
    // Applied live first, so that neither rebuild counts its usage (the results compared include what they counted).
    await eventually(
      () => traceStatus(stack, pro.apiKey, chunked, null),
      (status) => status === 200,
    );
    const rows = async () => ({
      ...(await telemetryRows(stack)),
      runItems: (await stack.db.query('SELECT to_jsonb(r) AS row FROM dataset_run_items r ORDER BY project_id, id')).rows,
    });
    const rebuildWith = async (workers: number) => {
      const res = await runCli(['rebuild', 'telemetry', '--json'], { ...stack.env, SPANLOG_REBUILD_WORKERS: String(workers) });
      if (res.code !== 0) throw new Error(`rebuild failed: ${res.stderr}`);
      expect(res.stderr).not.toContain('no compiled rebuild worker');
      const { durationMs, ...result } = JSON.parse(res.stdout) as RebuildResult;
      expect(durationMs).toBeGreaterThan(0);
      return { result, rows: await rows() };
    };

    await eventually(
      async () => (await stack.db.query(`SELECT cost_source FROM spans WHERE external_id = $1`, [split])).rows[0]?.cost_source,
      (source) => source === 'price:gpt-4o-mini',
    );
    const inProcess = await rebuildWith(0);
    expect(inProcess.result).toMatchObject({ workers: 0, skipped: 2 });
    const inWorkers = await rebuildWith(2);
    expect(inWorkers.result).toEqual({ ...inProcess.result, workers: 2 });
    // Every column of every row (`to_jsonb` of the row).
    expect(inWorkers.rows).toEqual(inProcess.rows);
    const splitCost = await stack.db.query(`SELECT cost_source FROM spans WHERE external_id = $1`, [split]);
    expect(splitCost.rows).toEqual([{ cost_source: 'price:gpt-4o-mini' }]);
    expect(await traceStatus(stack, pro.apiKey, chunked, null)).toBe(200);
  });

  it('refuses to start while another rebuild runs', async () => {
    const holder = new Client({ connectionString: stack.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(hashtext('spanlog:rebuild:telemetry'))`);
      const res = await runCli(['rebuild'], stack.env);
      expect(res.code).toBe(1);
      expect(res.stderr).toBe('spanlog: another rebuild of the telemetry projection is running\n');
    } finally {
      await holder.end();
    }
  });
});
