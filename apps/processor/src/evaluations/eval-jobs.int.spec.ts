import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { EVAL_JOB_SCHEMA, type EvalJobPublication, PLANS, evalJobMessageId } from '@app/domain';
import { type EvalRunRecord, EvalJobs } from '@app/persistence';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { deleteTraces } from '@app/projections';
import { relayEvalJobs } from '../reactors/eval-job-relay';
import { claimEvalJob, finishEvalJob } from './eval-job-claim';

const NOW = Date.parse('2026-11-20T12:00:00Z');

/** A run that ended with a result, as the worker records it. */
const doneRun = (over: Partial<EvalRunRecord> = {}): EvalRunRecord => ({
  status: 'done',
  score: 1,
  category: null,
  pass: true,
  comment: null,
  reason: null,
  error: null,
  attempts: 1,
  judge: null,
  ...over,
});

describe('evaluation jobs', () => {
  const db = useTestDatabase();

  const tenant = (plan = 'free') => seedProject(db.ds, { plan });
  async function evaluator(projectId: string, filter: object = { spanTypes: ['LLM'], names: [], sampleRate: 1 }, enabled = true) {
    const [{ id }] = await db.ds.query(
      `INSERT INTO evaluators (project_id, name, url, headers_sealed, signing_secret_sealed, timeout_ms, retries, filter, enabled)
       VALUES ($1, $2, 'https://eval.example.com', 'sealed', 'sealed', 10000, 1, $3, $4) RETURNING id`,
      [projectId, `e ${randomUUID()}`, JSON.stringify(filter), enabled],
    );
    return id as string;
  }
  async function span(projectId: string, over: { type?: string; name?: string; output?: unknown } = {}) {
    const id = randomUUID();
    await db.ds.query(
      `INSERT INTO spans (project_id, id, trace_id, name, type, input, output, created_at) VALUES ($1, $2, $3, $4, $5, '"q"', $6, now())`,
      [
        projectId,
        id,
        randomUUID(),
        over.name ?? 'chat',
        over.type ?? 'LLM',
        over.output === undefined ? '"a"' : over.output === null ? null : JSON.stringify(over.output),
      ],
    );
    return { projectId, id };
  }
  const jobsOf = async (evaluatorId: string) =>
    db.ds.query(`SELECT id, span_id, status, reason FROM eval_jobs WHERE evaluator_id = $1 ORDER BY span_id`, [evaluatorId]);

  it('schedules each selected span with an output once per enabled evaluator', async () => {
    const { projectId } = await tenant();
    const llm = await evaluator(projectId);
    const tools = await evaluator(projectId, { spanTypes: ['TOOL'], names: ['search'], sampleRate: 1 });
    await evaluator(projectId, { spanTypes: ['LLM'], names: [], sampleRate: 1 }, false);
    const spans = [
      await span(projectId),
      await span(projectId, { output: null }),
      await span(projectId, { type: 'TOOL', name: 'search' }),
      await span(projectId, { type: 'TOOL', name: 'fetch' }),
    ];
    expect(await db.ds.transaction((m) => new EvalJobs(m).schedule(spans))).toBe(2);
    expect(await db.ds.transaction((m) => new EvalJobs(m).schedule(spans))).toBe(0);
    expect((await jobsOf(llm)).map((j: { span_id: string }) => j.span_id)).toEqual([spans[0].id]);
    expect((await jobsOf(tools)).map((j: { span_id: string }) => j.span_id)).toEqual([spans[2].id]);
    // A project without evaluators costs one look-up and schedules nothing.
    const other = await tenant();
    const unevaluated = await span(other.projectId);
    expect(await db.ds.transaction((m) => new EvalJobs(m).schedule([unevaluated]))).toBe(0);
  });

  it('samples each span the same way every time, near the rate over many spans', async () => {
    const { projectId } = await tenant();
    const half = await evaluator(projectId, { spanTypes: ['LLM'], names: [], sampleRate: 0.5 });
    const none = await evaluator(projectId, { spanTypes: ['LLM'], names: [], sampleRate: 0 });
    const spans: { projectId: string; id: string }[] = [];
    for (let i = 0; i < 400; i++) spans.push(await span(projectId));
    const queued = await db.ds.transaction((m) => new EvalJobs(m).schedule(spans));
    const byStatus = async (evaluatorId: string, status: string) =>
      (await jobsOf(evaluatorId)).filter((j: { status: string }) => j.status === status);
    const sampled = (await byStatus(half, 'queued')).length;
    expect(sampled).toBeGreaterThan(140);
    expect(sampled).toBeLessThan(260);
    expect(queued).toBe(sampled);
    expect(await byStatus(none, 'queued')).toEqual([]);
    // The others are in the run log as skipped, sampled out, and are never relayed.
    expect(await byStatus(half, 'skipped')).toHaveLength(400 - sampled);
    expect(await byStatus(none, 'skipped')).toHaveLength(400);
    expect(new Set((await byStatus(none, 'skipped')).map((j: { reason: string }) => j.reason))).toEqual(new Set(['sampled out']));
    // The same span is sampled the same way when it is seen again.
    await db.ds.transaction((m) => new EvalJobs(m).schedule(spans));
    expect(await byStatus(half, 'queued')).toHaveLength(sampled);
  });

  it('deletes skipped runs with their trace (the run log is bounded by retention) and keeps counted ones without their result', async () => {
    const { projectId } = await tenant('pro');
    const none = await evaluator(projectId, { spanTypes: ['LLM'], names: [], sampleRate: 0 });
    const all = await evaluator(projectId);
    const s = await span(projectId);
    await db.ds.transaction((m) => new EvalJobs(m).schedule([s]));
    const [{ trace_id: traceId }] = await db.ds.query(`SELECT trace_id FROM spans WHERE id = $1`, [s.id]);
    expect((await jobsOf(none)).map((j: { status: string }) => j.status)).toEqual(['skipped']);
    await db.ds.transaction((m) => deleteTraces(m, [{ projectId, id: traceId, deletedAt: '2026-11-21T00:00:00Z' }]));
    expect(await jobsOf(none)).toEqual([]);
    expect((await jobsOf(all)).map((j: { status: string }) => j.status)).toEqual(['queued']);
  });

  it('relays queued jobs once, with the job id as the message id', async () => {
    const { orgId, projectId } = await tenant();
    const id = await evaluator(projectId);
    const spans = [await span(projectId), await span(projectId)];
    await db.ds.transaction((m) => new EvalJobs(m).schedule(spans));
    const published: EvalJobPublication[] = [];
    let moved = 0;
    do moved = await relayEvalJobs(db.ds, 1_000, async (jobs) => void published.push(...jobs));
    while (moved > 0);
    const mine = published.filter((j) => j.message.evaluatorId === id);
    expect(mine).toHaveLength(2);
    expect(mine[0]).toEqual({
      message: { schema: EVAL_JOB_SCHEMA, jobId: expect.any(String), orgId, projectId, evaluatorId: id },
      deferrals: 0,
    });
    expect(evalJobMessageId(mine[0])).toBe(mine[0].message.jobId);
    expect((await jobsOf(id)).map((j: { status: string }) => j.status)).toEqual(['published', 'published']);
    expect(await relayEvalJobs(db.ds, 1_000, async () => undefined)).toBe(0);
  });

  it("stops a Free organization's evaluations at its monthly limit: the job is skipped and recorded, not counted", async () => {
    const { orgId, projectId } = await tenant('free');
    const id = await evaluator(projectId);
    const limit = PLANS.free.evalRunsPerMonth as number;
    // The month's runs so far: all but one of the limit, and older ones that no longer count.
    await db.ds.query(
      `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id, status, started_at)
       SELECT $1, $2, $3, gen_random_uuid(), gen_random_uuid(), 'done', $4 FROM generate_series(1, $5)`,
      [orgId, projectId, id, '2026-11-02T00:00:00Z', limit - 1],
    );
    await db.ds.query(
      `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id, status, started_at)
       SELECT $1, $2, $3, gen_random_uuid(), gen_random_uuid(), 'done', '2026-10-31T23:59:59Z' FROM generate_series(1, 50)`,
      [orgId, projectId, id],
    );
    const first = await span(projectId);
    const second = await span(projectId);
    await db.ds.transaction((m) => new EvalJobs(m).schedule([first, second]));
    const [a, b] = await db.ds.query(`SELECT id FROM eval_jobs WHERE span_id = ANY($1::uuid[]) ORDER BY span_id = $2 DESC`, [
      [first.id, second.id],
      first.id,
    ]);

    // Claimed at once, the two race for the last run: exactly one gets it.
    const claims = await Promise.all([claimEvalJob(db.ds, a.id, NOW), claimEvalJob(db.ds, b.id, NOW)]);
    expect(claims.map((c) => c.kind).sort()).toEqual(['run', 'skipped']);
    const skipped = claims.find((c) => c.kind === 'skipped') as { reason: string; error: string };
    expect(skipped.reason).toBe('quota reached');
    expect(skipped.error).toMatch(
      /the free plan's monthly quota of 500 LLM evals is used up \(500 this month\); it resets at 2026-12-01T00:00:00.000Z/,
    );
    const ran = claims.find((c) => c.kind === 'run') as Extract<(typeof claims)[number], { kind: 'run' }>;
    await finishEvalJob(db.ds, ran.run, doneRun({ score: 1, pass: true }));
    const counted = await db.ds.query(`SELECT month, metric, n FROM usage_outbox WHERE org_id = $1`, [orgId]);
    expect(counted).toEqual([{ month: '2026-11', metric: 'eval_runs', n: 1 }]);

    // A redelivered job is not run or counted again.
    expect(await claimEvalJob(db.ds, a.id, NOW)).toEqual({ kind: 'finished' });
    expect(await claimEvalJob(db.ds, b.id, NOW)).toEqual({ kind: 'finished' });
    await finishEvalJob(db.ds, ran.run, doneRun({ score: 1, pass: true }));
    expect(await db.ds.query(`SELECT count(*)::int AS n FROM usage_outbox WHERE org_id = $1`, [orgId])).toEqual([{ n: 1 }]);
  });

  it('runs past the limit on a plan with overages, and runs a job again whose worker died mid-call without counting it twice', async () => {
    const { orgId, projectId } = await tenant('pro');
    const id = await evaluator(projectId);
    await db.ds.query(
      `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id, status, started_at)
       SELECT $1, $2, $3, gen_random_uuid(), gen_random_uuid(), 'done', $4 FROM generate_series(1, $5)`,
      [orgId, projectId, id, '2026-11-02T00:00:00Z', PLANS.pro.evalRunsPerMonth],
    );
    const s = await span(projectId);
    await db.ds.transaction((m) => new EvalJobs(m).schedule([s]));
    const [{ id: jobId }] = await db.ds.query(`SELECT id FROM eval_jobs WHERE span_id = $1`, [s.id]);
    const first = await claimEvalJob(db.ds, jobId, NOW);
    expect(first.kind).toBe('run');
    const again = await claimEvalJob(db.ds, jobId, NOW);
    expect(again).toEqual(first);
    if (again.kind !== 'run') throw new Error('unreachable');
    expect(again.run).toMatchObject({
      orgId,
      projectId,
      target: { kind: 'span', spanId: s.id, input: 'q', output: 'a' },
      evaluator: { id, url: 'https://eval.example.com', timeoutMs: 10_000, retries: 1 },
    });
    await finishEvalJob(db.ds, again.run, doneRun({ score: 0.5, pass: false, comment: 'meh', attempts: 2 }));
    expect(await db.ds.query(`SELECT status, score, pass, comment, attempts FROM eval_jobs WHERE id = $1`, [jobId])).toEqual([
      { status: 'done', score: 0.5, pass: false, comment: 'meh', attempts: 2 },
    ]);

    // Retention takes the result with the trace; the run stays counted for the month's quota.
    await db.ds.transaction((m) =>
      deleteTraces(m, [{ projectId, id: (again.run.target as { traceId: string }).traceId, deletedAt: '2026-11-21T00:00:00Z' }]),
    );
    expect(
      await db.ds.query(`SELECT status, score, pass, comment, started_at IS NOT NULL AS started FROM eval_jobs WHERE id = $1`, [jobId]),
    ).toEqual([{ status: 'done', score: null, pass: null, comment: null, started: true }]);
  });

  it('skips, with the reason, a job whose evaluator was disabled or whose span was deleted', async () => {
    const { projectId } = await tenant('pro');
    const id = await evaluator(projectId);
    const gone = await span(projectId);
    const kept = await span(projectId);
    await db.ds.transaction((m) => new EvalJobs(m).schedule([gone, kept]));
    const jobs: { id: string; span_id: string }[] = await db.ds.query(`SELECT id, span_id FROM eval_jobs WHERE evaluator_id = $1`, [id]);
    const jobOf = (spanId: string) => (jobs.find((j) => j.span_id === spanId) as { id: string }).id;
    await db.ds.query(`DELETE FROM spans WHERE project_id = $1 AND id = $2`, [projectId, gone.id]);
    expect(await claimEvalJob(db.ds, jobOf(gone.id), NOW)).toEqual({
      kind: 'skipped',
      reason: 'span deleted',
      error: 'the span no longer exists (deleted by retention)',
      evaluatorKind: 'webhook',
    });
    await db.ds.query(`UPDATE evaluators SET enabled = false WHERE id = $1`, [id]);
    expect(await claimEvalJob(db.ds, jobOf(kept.id), NOW)).toEqual({
      kind: 'skipped',
      reason: 'evaluator disabled',
      error: null,
      evaluatorKind: 'webhook',
    });
    expect((await jobsOf(id)).map((j: { status: string }) => j.status)).toEqual(['skipped', 'skipped']);
  });

  it('defers a job whose URL has no room: queued again after a growing backoff, published again as a new message, its quota not taken', async () => {
    const { orgId, projectId } = await tenant('free');
    const id = await evaluator(projectId);
    const s = await span(projectId);
    await db.ds.transaction((m) => new EvalJobs(m).schedule([s]));
    const [{ id: jobId }] = await db.ds.query(`SELECT id FROM eval_jobs WHERE span_id = $1`, [s.id]);
    const relayMine = async () => {
      const mine: EvalJobPublication[] = [];
      await relayEvalJobs(db.ds, 1_000, async (jobs) => void mine.push(...jobs.filter((j) => j.message.jobId === jobId)));
      return mine;
    };
    expect(await relayMine()).toHaveLength(1);
    const asked: string[] = [];
    const full = (url: string) => (asked.push(url), false);

    expect(await claimEvalJob(db.ds, jobId, NOW, full)).toEqual({ kind: 'deferred', delayMs: 1_000 });
    expect(asked).toEqual(['https://eval.example.com']);
    const waiting = async () =>
      (
        await db.ds.query(
          `SELECT status, deferrals, started_at, round(extract(epoch FROM available_at - now()) * 1000) AS due_in_ms FROM eval_jobs WHERE id = $1`,
          [jobId],
        )
      )[0];
    expect(await waiting()).toMatchObject({ status: 'queued', deferrals: 1, started_at: null });
    // Not before it is due; then as a message of its own, which the stream does not drop as a repeat.
    expect(await relayMine()).toEqual([]);
    await db.ds.query(`UPDATE eval_jobs SET available_at = now() WHERE id = $1`, [jobId]);
    const [again] = await relayMine();
    expect(again).toEqual({ message: { schema: EVAL_JOB_SCHEMA, jobId, orgId, projectId, evaluatorId: id }, deferrals: 1 });
    expect(evalJobMessageId(again)).toBe(`${jobId}.1`);

    expect(await claimEvalJob(db.ds, jobId, NOW, full)).toEqual({ kind: 'deferred', delayMs: 2_000 });
    expect(Number((await waiting()).due_in_ms)).toBeGreaterThan(1_000);
    // Deferring took none of the Free organization's runs, and a job with room runs.
    expect(
      await db.ds.query(`SELECT count(*)::int AS n FROM eval_jobs WHERE org_id = $1 AND status IN ('running', 'done')`, [orgId]),
    ).toEqual([{ n: 0 }]);
    expect((await claimEvalJob(db.ds, jobId, NOW, () => true)).kind).toBe('run');
  });

  it("fails, without counting, a judge's job whose connection was deleted, and counts a judge's failed run", async () => {
    const { orgId, projectId } = await tenant('pro');
    const connectionId = randomUUID();
    const [{ id }] = await db.ds.query(
      `INSERT INTO evaluators (project_id, name, kind, judge, headers_sealed, signing_secret_sealed, timeout_ms, retries, filter)
       VALUES ($1, 'judge', 'llm-judge', $2, 'sealed', 'sealed', 30000, 3, $3) RETURNING id`,
      [
        projectId,
        JSON.stringify({ connectionId, model: 'gpt-4.1-mini', prompt: { name: 'p', label: null }, scoreType: 'numeric', categories: [] }),
        JSON.stringify({ spanTypes: ['LLM'], names: [], sampleRate: 1 }),
      ],
    );
    const gone = await span(projectId);
    await db.ds.transaction((m) => new EvalJobs(m).schedule([gone]));
    const [{ id: jobId }] = await db.ds.query(`SELECT id FROM eval_jobs WHERE span_id = $1`, [gone.id]);
    expect(await claimEvalJob(db.ds, jobId, NOW)).toEqual({
      kind: 'failed',
      reason: 'connection missing',
      error: expect.stringContaining(connectionId),
      evaluatorKind: 'llm-judge',
    });
    expect(await claimEvalJob(db.ds, jobId, NOW)).toEqual({ kind: 'finished' });

    // With its connection, it runs against the connection's base URL, and a failed run is counted once.
    await db.ds.query(
      `INSERT INTO llm_connections (id, project_id, name, base_url, api_key_sealed, headers_sealed) VALUES ($1, $2, 'c', 'https://llm.example.com/v1', 'k', 'h')`,
      [connectionId, projectId],
    );
    const s = await span(projectId);
    await db.ds.transaction((m) => new EvalJobs(m).schedule([s]));
    const [{ id: next }] = await db.ds.query(`SELECT id FROM eval_jobs WHERE span_id = $1`, [s.id]);
    const claimed = await claimEvalJob(db.ds, next, NOW);
    if (claimed.kind !== 'run') throw new Error(`expected a run, got ${claimed.kind}`);
    expect(claimed.run.evaluator).toMatchObject({ id, kind: 'llm-judge', url: 'https://llm.example.com/v1', judge: { connectionId } });
    expect(claimed.run.target).toEqual({
      kind: 'span',
      traceId: expect.any(String),
      spanId: s.id,
      input: 'q',
      output: 'a',
      metadata: null,
    });
    await finishEvalJob(
      db.ds,
      claimed.run,
      doneRun({ status: 'failed', score: null, pass: null, reason: 'judge reply unreadable', error: 'not JSON', attempts: 1 }),
    );
    expect(await db.ds.query(`SELECT metric, n FROM usage_outbox WHERE org_id = $1`, [orgId])).toEqual([{ metric: 'eval_runs', n: 1 }]);

    // The run log lists both, newest first, a page at a time.
    const jobs = new EvalJobs(db.ds.manager);
    const all = await jobs.runs(id, [], null, 10);
    expect(all.map((r) => [r.run.status, r.run.reason])).toEqual([
      ['failed', 'judge reply unreadable'],
      ['failed', 'connection missing'],
    ]);
    const [first] = await jobs.runs(id, [], null, 1);
    expect((await jobs.runs(id, [], first.position, 10)).map((r) => r.run.id)).toEqual([all[1].run.id]);
    expect(await jobs.runs(id, ['done'], null, 10)).toEqual([]);
  });
});
