import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { INGEST_SCHEMAS, envelopeToHeaders } from '@app/domain';
import { ChunkReader, toNatsHeaders } from '@app/eventlog';
import { EvalJobs, TraceEvaluations } from '@app/persistence';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { ProjectPriceTables, deleteTraces, telemetryLiveHooks, telemetryProjection } from '@app/projections';
import { claimEvalJob } from './eval-job-claim';
import { pollTraceEvaluations } from './trace-evaluation.poller';

/**
 * Trace-level evaluation in Postgres (issue 29): the projection arms a trace once its root span
 * ended, the pollers make one job per run whoever polls, a late span re-arms it once, and a
 * deleted trace or evaluator leaves nothing pending. Time passing is a due time moved into
 * the past: no test waits for the quiet window.
 */
describe('trace evaluations', () => {
  const db = useTestDatabase();

  async function evaluator(projectId: string, over: { filter?: object; enabled?: boolean; target?: string; quiet?: number } = {}) {
    const [{ id }] = await db.ds.query(
      `INSERT INTO evaluators (project_id, name, url, headers_sealed, signing_secret_sealed, timeout_ms, retries, filter, enabled, target, quiet_seconds)
       VALUES ($1, $2, 'https://eval.example.com', 'sealed', 'sealed', 10000, 1, $3, $4, $5, $6) RETURNING id`,
      [
        projectId,
        `e ${randomUUID()}`,
        JSON.stringify(over.filter ?? { spanTypes: ['LLM'], names: [], sampleRate: 1 }),
        over.enabled ?? true,
        over.target ?? 'trace',
        over.quiet ?? 5,
      ],
    );
    return id as string;
  }
  /** A trace with a root span (ended or not) and a child LLM span with an output. */
  async function trace(projectId: string, { rootEnded = true, name = 'agent run' } = {}) {
    const id = randomUUID();
    const root = randomUUID();
    await db.ds.query(`INSERT INTO traces (project_id, id, name, first_event_time, created_at) VALUES ($1, $2, $3, now(), now())`, [
      projectId,
      id,
      name,
    ]);
    await db.ds.query(
      `INSERT INTO spans (project_id, id, trace_id, parent_id, name, type, input, output, start_time, end_time, created_at)
       VALUES ($1, $3, $2, NULL, 'agent', 'AGENT', '"question"', '"answer"', now(), CASE WHEN $5 THEN now() END, now()),
              ($1, $4, $2, $3, 'chat', 'LLM', '"q"', '"a"', now(), now(), now())`,
      [projectId, id, root, randomUUID(), rootEnded],
    );
    return { projectId, id, root };
  }
  const arm = (traces: { projectId: string; id: string }[]) => db.ds.transaction((m) => new TraceEvaluations(m).arm(traces));
  /** The quiet window over: every armed row of the evaluator is due. */
  const elapse = (evaluatorId: string) =>
    db.ds.query(
      `UPDATE trace_evaluations_pending SET due_at = now() - interval '1 second' WHERE evaluator_id = $1 AND due_at IS NOT NULL`,
      [evaluatorId],
    );
  const pending = (evaluatorId: string) =>
    db.ds.query(
      `SELECT trace_id, runs, due_at IS NOT NULL AS armed,
              extract(epoch FROM due_at - now())::float8 AS due_in
         FROM trace_evaluations_pending WHERE evaluator_id = $1 ORDER BY trace_id`,
      [evaluatorId],
    ) as Promise<{ trace_id: string; runs: number; armed: boolean; due_in: number | null }[]>;
  const jobsOf = (evaluatorId: string) =>
    db.ds.query(`SELECT id, trace_id, span_id, trace_run FROM eval_jobs WHERE evaluator_id = $1 ORDER BY trace_id, trace_run`, [
      evaluatorId,
    ]) as Promise<{ id: string; trace_id: string; span_id: string | null; trace_run: number }[]>;

  it('arms a trace only once its root span has ended, due the quiet window after the last write', async () => {
    const { projectId } = await seedProject(db.ds, { plan: 'pro' });
    const id = await evaluator(projectId, { quiet: 5 });
    const open = await trace(projectId, { rootEnded: false });
    await arm([open]);
    expect(await pending(id)).toEqual([{ trace_id: open.id, runs: 0, armed: false, due_in: null }]);
    expect((await pollTraceEvaluations(db.ds, 100)).taken).toBe(0);

    // The root's end arrives: due in 5 s, and not before.
    await db.ds.query(`UPDATE spans SET end_time = now() WHERE id = $1`, [open.root]);
    await arm([open]);
    const [armed] = await pending(id);
    expect(armed.armed).toBe(true);
    expect(armed.due_in).toBeGreaterThan(4);
    expect(armed.due_in).toBeLessThanOrEqual(5);
    expect((await pollTraceEvaluations(db.ds, 100)).taken).toBe(0);
    expect(await jobsOf(id)).toEqual([]);

    await elapse(id);
    expect(await pollTraceEvaluations(db.ds, 100)).toMatchObject({ taken: 1, jobs: 1 });
    expect(await jobsOf(id)).toEqual([{ id: expect.any(String), trace_id: open.id, span_id: null, trace_run: 1 }]);
    expect(await pending(id)).toEqual([{ trace_id: open.id, runs: 1, armed: false, due_in: null }]);
  });

  it('is armed by the live projection from the spans and trace events it writes, never by a score', async () => {
    const { orgId, projectId } = await seedProject(db.ds, { plan: 'pro' });
    const id = await evaluator(projectId);
    const context = { chunks: new ChunkReader(undefined as never, undefined as never) };
    let seq = 0;
    /** Applies one native request the way the live projection does: the rows, then its evaluation hook. */
    const apply = async (schema: (typeof INGEST_SCHEMAS)[keyof typeof INGEST_SCHEMAS], body: unknown) => {
      seq++;
      const headers = envelopeToHeaders({
        schema,
        orgId,
        projectId,
        apiKeyId: 'key-1',
        receivedAt: new Date().toISOString(),
        requestId: randomUUID(),
        chunkIndex: 0,
        chunkCount: 1,
      });
      const decoded = await telemetryProjection.decode(
        { seq, headers: toNatsHeaders(headers), data: new TextEncoder().encode(JSON.stringify(body)) },
        context,
      );
      const batch = await telemetryProjection.prepare([decoded], { prices: new ProjectPriceTables(db.ds) });
      await db.ds.transaction(async (tx) => {
        await telemetryProjection.apply(tx, batch);
        await telemetryLiveHooks.scheduleEvaluations(tx, batch);
      });
    };
    const at = new Date().toISOString();
    await apply(INGEST_SCHEMAS.nativeBatch, {
      batch: [{ id: 'e1', type: 'span-create', timestamp: at, body: { id: 'root', traceId: 'tr', name: 'agent', startTime: at } }],
    });
    expect(await pending(id)).toEqual([expect.objectContaining({ runs: 0, armed: false })]);
    await apply(INGEST_SCHEMAS.nativeBatch, {
      batch: [{ id: 'e2', type: 'span-update', timestamp: at, body: { id: 'root', traceId: 'tr', endTime: at } }],
    });
    const [armed] = await pending(id);
    expect(armed.armed).toBe(true);
    // A score (an evaluation's own, say) leaves the due time where it was.
    await db.ds.query(`UPDATE trace_evaluations_pending SET due_at = due_at - interval '3 seconds' WHERE evaluator_id = $1`, [id]);
    await apply(INGEST_SCHEMAS.scores, { scores: [{ traceId: 'tr', name: 'quality', value: 1 }] });
    const [afterScore] = await pending(id);
    expect(afterScore.due_in).toBeLessThan(armed.due_in! - 2);
    // Its row would come due during the next tests, whose polls take every due row.
    await db.ds.query(`DELETE FROM evaluators WHERE id = $1`, [id]);
  });

  it('makes one job per trace when two pollers take due rows at once', async () => {
    const { projectId } = await seedProject(db.ds, { plan: 'pro' });
    const id = await evaluator(projectId);
    const traces = [];
    for (let i = 0; i < 40; i++) traces.push(await trace(projectId));
    await arm(traces);
    await elapse(id);
    const polls: number[] = [];
    const poller = async () => {
      for (;;) {
        const { taken } = await pollTraceEvaluations(db.ds, 3);
        if (!taken) return;
        polls.push(taken);
      }
    };
    await Promise.all([poller(), poller()]);
    expect(polls.reduce((a, b) => a + b, 0)).toBe(40);
    const jobs = await jobsOf(id);
    expect(jobs).toHaveLength(40);
    expect(new Set(jobs.map((j) => j.trace_id)).size).toBe(40);
    expect(jobs.every((j) => j.trace_run === 1)).toBe(true);
  });

  it('re-arms a trace after late data once, and never a third time', async () => {
    const { projectId } = await seedProject(db.ds, { plan: 'pro' });
    const id = await evaluator(projectId);
    const t = await trace(projectId);
    await arm([t]);
    await elapse(id);
    await pollTraceEvaluations(db.ds, 100);

    // A late span: armed again, a second run.
    await arm([t]);
    expect((await pending(id))[0]).toMatchObject({ runs: 1, armed: true });
    await elapse(id);
    expect(await pollTraceEvaluations(db.ds, 100)).toMatchObject({ taken: 1, jobs: 1 });

    // Later data arms nothing: two runs are all a trace gets.
    await arm([t]);
    expect(await pending(id)).toEqual([{ trace_id: t.id, runs: 2, armed: false, due_in: null }]);
    expect((await pollTraceEvaluations(db.ds, 100)).taken).toBe(0);
    expect((await jobsOf(id)).map((j) => j.trace_run)).toEqual([1, 2]);
  });

  it('leaves span-target evaluators to the spans, and the trace filter decides when due', async () => {
    const { projectId } = await seedProject(db.ds, { plan: 'pro' });
    const spanTarget = await evaluator(projectId, { target: 'span' });
    const named = await evaluator(projectId, { filter: { spanTypes: ['LLM'], names: ['checkout'], sampleRate: 1 } });
    const disabled = await evaluator(projectId, { enabled: false });
    const t = await trace(projectId, { name: 'agent run' });
    await arm([t]);
    expect(await pending(spanTarget)).toEqual([]);
    expect(await pending(disabled)).toEqual([]);
    await elapse(named);
    expect(await pollTraceEvaluations(db.ds, 100)).toMatchObject({
      taken: 1,
      jobs: 0,
      decisions: [{ kind: 'rest', reason: "the evaluator's filter leaves the trace out" }],
    });
    // A trace-target evaluator makes no span jobs; the span-target one does.
    const [child] = await db.ds.query(`SELECT project_id AS "projectId", id FROM spans WHERE trace_id = $1 AND parent_id IS NOT NULL`, [
      t.id,
    ]);
    await db.ds.transaction((m) => new EvalJobs(m).schedule([child]));
    expect(await jobsOf(named)).toEqual([]);
    expect((await jobsOf(spanTarget)).map((j) => j.span_id)).toEqual([child.id]);
  });

  it('logs a trace the sample leaves out as one skipped run, and runs it once a higher rate selects it', async () => {
    const { projectId } = await seedProject(db.ds, { plan: 'pro' });
    const id = await evaluator(projectId, { filter: { spanTypes: ['LLM'], names: [], sampleRate: 0 } });
    const t = await trace(projectId);
    await arm([t]);
    await elapse(id);
    expect(await pollTraceEvaluations(db.ds, 100)).toMatchObject({ taken: 1, jobs: 0, decisions: [{ kind: 'sampled-out', run: 1 }] });
    const runs = () =>
      db.ds.query(`SELECT span_id, trace_run, status, reason, started_at FROM eval_jobs WHERE evaluator_id = $1`, [id]) as Promise<
        unknown[]
      >;
    expect(await runs()).toEqual([{ span_id: null, trace_run: 1, status: 'skipped', reason: 'sampled out', started_at: null }]);
    // Late data: due again, still out of the sample, still one skipped run, and no run used.
    await arm([t]);
    await elapse(id);
    await pollTraceEvaluations(db.ds, 100);
    expect(await runs()).toHaveLength(1);
    expect(await pending(id)).toEqual([{ trace_id: t.id, runs: 0, armed: false, due_in: null }]);
    // The whole sample now: the skipped run becomes the trace's first job.
    await db.ds.query(`UPDATE evaluators SET filter = jsonb_set(filter, '{sampleRate}', '1') WHERE id = $1`, [id]);
    await arm([t]);
    await elapse(id);
    expect(await pollTraceEvaluations(db.ds, 100)).toMatchObject({ jobs: 1, decisions: [{ kind: 'run', run: 1 }] });
    expect(await runs()).toEqual([{ span_id: null, trace_run: 1, status: 'queued', reason: null, started_at: null }]);
  });

  it('leaves no pending row behind a deleted trace or evaluator', async () => {
    const { projectId } = await seedProject(db.ds, { plan: 'pro' });
    const id = await evaluator(projectId);
    const [retained, deleted, vanished] = [await trace(projectId), await trace(projectId), await trace(projectId)];
    await arm([retained, deleted, vanished]);
    // Retention: the deletion removes the trace's row in its transaction.
    await db.ds.transaction((m) => deleteTraces(m, [{ projectId, id: deleted.id, deletedAt: new Date().toISOString() }]));
    expect((await pending(id)).map((p) => p.trace_id).sort()).toEqual([retained.id, vanished.id].sort());
    // A trace gone some other way is dropped when it comes due.
    await db.ds.query(`DELETE FROM traces WHERE project_id = $1 AND id = $2`, [projectId, vanished.id]);
    await elapse(id);
    expect(await pollTraceEvaluations(db.ds, 100)).toMatchObject({ taken: 2, jobs: 1 });
    expect((await pending(id)).map((p) => p.trace_id)).toEqual([retained.id]);
    await db.ds.query(`DELETE FROM evaluators WHERE id = $1`, [id]);
    expect(await db.ds.query(`SELECT count(*)::int AS n FROM trace_evaluations_pending WHERE evaluator_id = $1`, [id])).toEqual([{ n: 0 }]);
  });

  it("claims a trace job with the trace's input and output (its root span's) and its spans summarized", async () => {
    const { projectId } = await seedProject(db.ds, { plan: 'pro' });
    const id = await evaluator(projectId);
    const t = await trace(projectId);
    await arm([t]);
    await elapse(id);
    await pollTraceEvaluations(db.ds, 100);
    const [job] = await jobsOf(id);
    const claimed = await claimEvalJob(db.ds, job.id, Date.now());
    if (claimed.kind !== 'run') throw new Error(`not run: ${JSON.stringify(claimed)}`);
    expect(claimed.run.evaluator).toMatchObject({ id, target: 'trace', quietSeconds: 5, filter: { tags: [], environments: [] } });
    expect(claimed.run.target).toMatchObject({
      kind: 'trace',
      trace: { id: t.id, name: 'agent run', input: 'question', output: 'answer', spanCount: 2, spansLeftOut: 0 },
    });
    const { trace: read } = claimed.run.target as { trace: { spans: { id: string; parentId: string | null }[] } };
    expect(read.spans.map((s) => s.parentId)).toContain(null);

    // Deleted before its job runs: skipped with the reason.
    await db.ds.transaction((m) => deleteTraces(m, [{ projectId, id: t.id, deletedAt: new Date().toISOString() }]));
    await db.ds.query(`UPDATE eval_jobs SET status = 'published' WHERE id = $1`, [job.id]);
    expect(await claimEvalJob(db.ds, job.id, Date.now())).toEqual({
      kind: 'skipped',
      reason: 'trace deleted',
      error: 'the trace no longer exists (deleted by retention)',
      evaluatorKind: 'webhook',
    });
    expect(await db.ds.query(`SELECT status, reason FROM eval_jobs WHERE id = $1`, [job.id])).toEqual([
      { status: 'skipped', reason: 'trace deleted' },
    ]);
  });
});
