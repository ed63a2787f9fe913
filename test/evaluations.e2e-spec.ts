import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { type IncomingHttpHeaders, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookRequestBody } from '@app/domain';
import { type Session, type Tenant, bootstrap, data, eventually, login, mutate, query, send, setPlan } from './support/api';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { metricValue, scrapeMetrics } from './support/metrics';
import { type Stack, runCli, startStack } from './support/stack';

interface WebhookCall {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent: the signature covers these bytes. */
  raw: string;
  body: WebhookRequestBody;
}

/**
 * Webhook evaluators end to end (SPEC 6.1, CONTRACT "Webhook evaluators" and "Quotas and
 * plans"): a span the filter selects is sent to the webhook once, the answer becomes an EVAL
 * score on the trace and an eval run in usage; failures score 0 and fail; a Free
 * organization at its eval limit is skipped and not counted; a rebuild calls nothing.
 */
describe('webhook evaluators', () => {
  let stack: Stack;
  let webhook: Server;
  let base: string;
  const calls: WebhookCall[] = [];
  /** How each path answers; `attempt` counts that path's calls from 1. */
  const answers: Record<string, (attempt: number) => { status: number; body: unknown } | null> = {
    '/good': () => ({ status: 200, body: { score: 0.9, pass: true, reason: 'helpful', metadata: { judge: 'test' } } }),
    '/flaky': (attempt) => (attempt === 1 ? { status: 503, body: 'warming up' } : { status: 200, body: { score: 1, pass: true } }),
    '/reject': () => ({ status: 400, body: { error: 'bad payload' } }),
    '/hang': () => ({ status: 200, body: { score: 0.2, pass: false, reason: 'late' } }),
  };
  let pro: Tenant;
  let proSession: Session;
  /** The answers `/hang` holds back while `holding`: a webhook that never answers, until the test lets it. */
  const hanging: ServerResponse[] = [];
  let holding = true;
  let mostHanging = 0;

  beforeAll(async () => {
    webhook = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const path = req.url ?? '';
        calls.push({ path, headers: req.headers, raw: text, body: JSON.parse(text) });
        if (path === '/hang' && holding) {
          hanging.push(res);
          mostHanging = Math.max(mostHanging, hanging.filter((r) => !r.writableEnded).length);
          return;
        }
        const answer = answers[path]?.(calls.filter((c) => c.path === path).length) ?? { status: 404, body: 'no such path' };
        res
          .writeHead(answer.status, { 'content-type': 'application/json' })
          .end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      });
    });
    webhook.listen(0, '127.0.0.1');
    await once(webhook, 'listening');
    base = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
    stack = await startStack();
    pro = await bootstrap(stack, 'pro-evals@spanlog.test', 'Evals pro', 'p', 'pro');
    proSession = await login(stack, 'pro-evals@spanlog.test');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => webhook?.close(resolve));
  });

  const createEvaluator = async (session: Session, projectId: string, input: Record<string, unknown>) =>
    data(await mutate(stack, session.access_token, 'evaluator.create', { projectId, ...input })) as {
      id: string;
      name: string;
      signingSecret: string;
    };
  /** A trace with an LLM call that has an output, a tool call, and an LLM call still running. */
  const agentRun = (traceId: string) => {
    const at = new Date().toISOString();
    return [
      { id: `${traceId}-t`, type: 'trace-create', timestamp: at, body: { id: traceId, name: 'agent run' } },
      {
        id: `${traceId}-llm`,
        type: 'span-create',
        timestamp: at,
        body: {
          id: `${traceId}-llm`,
          traceId,
          name: 'chat',
          type: 'LLM',
          startTime: at,
          input: { question: 'refund?' },
          output: 'Yes, within 30 days.',
        },
      },
      {
        id: `${traceId}-tool`,
        type: 'span-create',
        timestamp: at,
        body: { id: `${traceId}-tool`, traceId, name: 'search', type: 'TOOL', startTime: at, output: 'policy.md' },
      },
      {
        id: `${traceId}-open`,
        type: 'span-create',
        timestamp: at,
        body: { id: `${traceId}-open`, traceId, name: 'chat', type: 'LLM', startTime: at },
      },
    ];
  };
  const traceScores = async (apiKey: string, traceId: string) => {
    const res = await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: apiKey });
    return res.status === 200
      ? (res.body.scores as {
          name: string;
          value: unknown;
          source: string;
          comment: string | null;
          metadata: Record<string, unknown>;
          spanId: string;
        }[])
      : [];
  };
  const evalRuns = async (session: Session, orgId: string) =>
    data(await query(stack, session.access_token, 'usage.get', { orgId })).evalRuns as number;
  /** The processor's evaluation count by outcome (pass, fail, error, skipped). */
  const evaluatorCalls = async (): Promise<Record<string, number>> => {
    const { families } = await scrapeMetrics(stack.processorMetricsUrl);
    return Object.fromEntries(
      ['pass', 'fail', 'error', 'skipped'].map((outcome) => [
        outcome,
        metricValue(families, 'spanlog_evaluator_calls_total', { outcome }) ?? NaN,
      ]),
    );
  };

  it('sends each selected span with an output to the webhook once, signed, and stores the answer as an EVAL score counted as an eval run', async () => {
    const evaluator = await createEvaluator(proSession, pro.projectId, {
      name: 'helpfulness',
      url: `${base}/good`,
      headers: { authorization: 'Bearer hook-secret' },
    });
    const traceId = `eval-${randomUUID()}`;
    await ingest(stack, pro.apiKey, NATIVE_TRACES, { batch: agentRun(traceId) });

    const [score] = await eventually(
      () => traceScores(pro.apiKey, traceId),
      (s) => s.length > 0,
    );
    expect(score).toMatchObject({
      name: 'helpfulness',
      value: 0.9,
      source: 'EVAL',
      comment: 'helpful',
      metadata: { pass: true, judge: 'test' },
    });
    const good = calls.filter((c) => c.path === '/good');
    expect(good).toHaveLength(1);
    expect(good[0].headers.authorization).toBe('Bearer hook-secret');
    expect(good[0].body).toEqual({
      traceId: expect.any(String),
      spanId: score.spanId,
      input: '{"question":"refund?"}',
      output: 'Yes, within 30 days.',
      metadata: expect.objectContaining({
        id: evaluator.id,
        name: 'helpfulness',
        filter: { spanTypes: ['LLM'], names: [], sampleRate: 1 },
      }),
      expectedOutput: null,
    });
    expect(JSON.stringify(good[0].body)).not.toContain('hook-secret');
    // The receiver knows the call is ours: the Standard Webhooks library verifies it with the evaluator's secret.
    const [job] = (await stack.db.query(`SELECT id FROM eval_jobs WHERE evaluator_id = $1`, [evaluator.id])).rows;
    expect(good[0].headers['webhook-id']).toBe(job.id);
    expect(new Webhook(evaluator.signingSecret).verify(good[0].raw, good[0].headers as Record<string, string>)).toEqual(good[0].body);
    // The header value and the signing secret are stored encrypted.
    const [row] = (await stack.db.query(`SELECT to_jsonb(e) AS row FROM evaluators e WHERE id = $1`, [evaluator.id])).rows;
    expect(JSON.stringify(row)).not.toMatch(/hook-secret|whsec_/);
    expect(
      await eventually(
        () => evalRuns(proSession, pro.orgId),
        (n) => n === 1,
      ),
    ).toBe(1);

    // The running LLM call is evaluated once its output arrives, and never twice.
    const at = new Date().toISOString();
    await ingest(stack, pro.apiKey, NATIVE_TRACES, {
      batch: [
        {
          id: `${traceId}-open-end`,
          type: 'span-update',
          timestamp: at,
          body: { id: `${traceId}-open`, traceId, output: 'done', endTime: at },
        },
      ],
    });
    await eventually(
      () => traceScores(pro.apiKey, traceId),
      (s) => s.length === 2,
    );
    await ingest(stack, pro.apiKey, NATIVE_TRACES, {
      batch: [
        { id: `${traceId}-open-again`, type: 'span-update', timestamp: at, body: { id: `${traceId}-open`, traceId, output: 'done again' } },
      ],
    });
    expect(
      await eventually(
        () => evalRuns(proSession, pro.orgId),
        (n) => n === 2,
      ),
    ).toBe(2);
    expect(calls.filter((c) => c.path === '/good')).toHaveLength(2);
    await mutate(stack, proSession.access_token, 'evaluator.delete', { projectId: pro.projectId, id: evaluator.id });
  });

  it('retries a 5xx with backoff under one signed message id, scores a 4xx 0 and fail without retrying, and counts one pass and one error', async () => {
    const counted = await evaluatorCalls();
    const flaky = await createEvaluator(proSession, pro.projectId, { name: 'flaky', url: `${base}/flaky`, retries: 1 });
    const reject = await createEvaluator(proSession, pro.projectId, { name: 'strict', url: `${base}/reject`, retries: 3 });
    const traceId = `eval-${randomUUID()}`;
    await ingest(stack, pro.apiKey, NATIVE_TRACES, { batch: agentRun(traceId).slice(0, 2) });
    const scores = await eventually(
      () => traceScores(pro.apiKey, traceId),
      (s) => s.length === 2,
    );
    expect(scores.find((s) => s.name === 'flaky')).toMatchObject({ value: 1, metadata: { pass: true } });
    const strict = scores.find((s) => s.name === 'strict');
    expect(strict).toMatchObject({ value: 0, metadata: { pass: false } });
    expect(strict?.comment).toMatch(/HTTP 400 after 1 attempt/);
    const attempts = calls.filter((c) => c.path === '/flaky');
    expect(attempts).toHaveLength(2);
    expect(attempts[1].headers['webhook-id']).toBe(attempts[0].headers['webhook-id']);
    for (const a of attempts) expect(new Webhook(flaky.signingSecret).verify(a.raw, a.headers as Record<string, string>)).toEqual(a.body);
    expect(calls.filter((c) => c.path === '/reject')).toHaveLength(1);
    // Counted once the job is recorded as done, just after its score is stored.
    expect(await eventually(evaluatorCalls, (n) => n.pass + n.error === counted.pass + counted.error + 2)).toEqual({
      ...counted,
      pass: counted.pass + 1,
      error: counted.error + 1,
    });
    for (const e of [flaky, reject])
      await mutate(stack, proSession.access_token, 'evaluator.delete', { projectId: pro.projectId, id: e.id });
  });

  it('scores a call that cannot be made as 0 and fail with the reason, and dead-letters nothing', async () => {
    const evaluator = await createEvaluator(proSession, pro.projectId, { name: 'unsendable', url: `${base}/good` });
    // A header value Node refuses to send, as a version that did not check it could have stored it.
    await stack.db.query(`UPDATE evaluators SET headers = '{"X-Key": "clé €"}', headers_sealed = NULL WHERE id = $1`, [evaluator.id]);
    const before = calls.length;
    const traceId = `eval-${randomUUID()}`;
    await ingest(stack, pro.apiKey, NATIVE_TRACES, { batch: agentRun(traceId).slice(0, 2) });
    const [score] = await eventually(
      () => traceScores(pro.apiKey, traceId),
      (s) => s.length === 1,
    );
    expect(score).toMatchObject({ name: 'unsendable', value: 0, metadata: { pass: false } });
    expect(score.comment).toMatch(/could not be made: Invalid character in header content \["X-Key"\]/);
    expect(calls.length).toBe(before);
    const nc = await stack.connectNats();
    try {
      expect((await (await nc.jetstreamManager()).streams.info(`${stack.streamPrefix}DLQ`)).state.messages).toBe(0);
    } finally {
      await nc.close();
    }
    await mutate(stack, proSession.access_token, 'evaluator.delete', { projectId: pro.projectId, id: evaluator.id });
  });

  it('skips and records, without counting, the evaluations of a Free organization at its monthly limit, until it upgrades', async () => {
    const skippedBefore = (await evaluatorCalls()).skipped;
    const free = await bootstrap(stack, 'free-evals@spanlog.test', 'Evals free', 'p', 'free');
    const freeSession = await login(stack, 'free-evals@spanlog.test');
    const evaluator = await createEvaluator(freeSession, free.projectId, { name: 'quality', url: `${base}/good` });
    // The month's 500 runs, as the worker records them.
    await stack.db.query(
      `INSERT INTO eval_jobs (org_id, project_id, evaluator_id, trace_id, span_id, status, started_at)
       SELECT $1, $2, $3, gen_random_uuid(), gen_random_uuid(), 'done', now() FROM generate_series(1, 500)`,
      [free.orgId, free.projectId, evaluator.id],
    );
    const before = calls.length;
    const blocked = `eval-${randomUUID()}`;
    await ingest(stack, free.apiKey, NATIVE_TRACES, { batch: agentRun(blocked) });
    const [skipped] = await eventually(
      async () =>
        (await stack.db.query(`SELECT status, reason, error FROM eval_jobs WHERE org_id = $1 AND status = 'skipped'`, [free.orgId])).rows,
      (rows) => rows.length === 1,
    );
    expect(skipped.reason).toBe('quota reached');
    expect(skipped.error).toMatch(/the free plan's monthly quota of 500 LLM evals is used up/);
    expect(calls.length).toBe(before);
    expect(await traceScores(free.apiKey, blocked)).toEqual([]);
    expect(await evalRuns(freeSession, free.orgId)).toBe(0);
    expect(
      await eventually(
        async () => (await evaluatorCalls()).skipped,
        (n) => n === skippedBefore + 1,
      ),
    ).toBe(skippedBefore + 1);

    await setPlan(stack, free.orgId, 'pro');
    const allowed = `eval-${randomUUID()}`;
    await ingest(stack, free.apiKey, NATIVE_TRACES, { batch: agentRun(allowed) });
    await eventually(
      () => traceScores(free.apiKey, allowed),
      (s) => s.length === 1,
    );
    expect(
      await eventually(
        () => evalRuns(freeSession, free.orgId),
        (n) => n === 1,
      ),
    ).toBe(1);
  });

  it("scores one tenant's spans while another tenant's webhook leaves every call hanging, holding back only that webhook's calls", async () => {
    const slow = await bootstrap(stack, 'slow-evals@spanlog.test', 'Evals slow', 'p', 'pro');
    const fast = await bootstrap(stack, 'fast-evals@spanlog.test', 'Evals fast', 'p', 'pro');
    const [slowSession, fastSession] = [await login(stack, 'slow-evals@spanlog.test'), await login(stack, 'fast-evals@spanlog.test')];
    await createEvaluator(slowSession, slow.projectId, { name: 'slow', url: `${base}/hang`, timeoutMs: 30_000, retries: 0 });
    await createEvaluator(fastSession, fast.projectId, { name: 'fast', url: `${base}/good` });

    const at = new Date().toISOString();
    const slowTrace = `eval-${randomUUID()}`;
    await ingest(stack, slow.apiKey, NATIVE_TRACES, {
      batch: [
        { id: `${slowTrace}-t`, type: 'trace-create', timestamp: at, body: { id: slowTrace, name: 'busy agent' } },
        ...Array.from({ length: 30 }, (_, i) => ({
          id: `${slowTrace}-s${i}`,
          type: 'span-create',
          timestamp: at,
          body: { id: `${slowTrace}-s${i}`, traceId: slowTrace, name: 'chat', type: 'LLM', startTime: at, input: `q${i}`, output: `a${i}` },
        })),
      ],
    });
    // Every slow job has reached the worker, and the slow webhook holds its first calls.
    await eventually(
      async () =>
        (
          await stack.db.query(`SELECT count(*)::int AS n FROM eval_jobs WHERE org_id = $1 AND (status <> 'queued' OR deferrals > 0)`, [
            slow.orgId,
          ])
        ).rows[0].n,
      (n) => n === 30,
    );
    await eventually(
      async () => hanging.length,
      (n) => n > 0,
    );

    const fastTrace = `eval-${randomUUID()}`;
    await ingest(stack, fast.apiKey, NATIVE_TRACES, { batch: agentRun(fastTrace) });
    const [score] = await eventually(
      () => traceScores(fast.apiKey, fastTrace),
      (s) => s.length > 0,
    );
    expect(score).toMatchObject({ name: 'fast', value: 0.9, metadata: { pass: true } });
    // Scored while the calls to the slow webhook still hang, none of them answered; it gets its 10 at once, and no more.
    expect(hanging.every((res) => !res.writableEnded)).toBe(true);
    expect(await traceScores(slow.apiKey, slowTrace)).toEqual([]);
    await eventually(
      async () => hanging.length,
      (n) => n === 10,
    );

    holding = false;
    for (const res of hanging)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ score: 0.2, pass: false, reason: 'late' }));
    const slowScores = await eventually(
      () => traceScores(slow.apiKey, slowTrace),
      (s) => s.length === 30,
      30_000,
    );
    expect(slowScores.every((s) => s.value === 0.2 && s.comment === 'late')).toBe(true);
    expect(mostHanging).toBe(10);
    expect(calls.filter((c) => c.path === '/hang')).toHaveLength(30);
  });

  it('calls no webhook and counts nothing on a rebuild, and keeps the EVAL scores', async () => {
    const scored = (await stack.db.query(`SELECT count(*)::int AS n FROM scores WHERE source = 'EVAL'`)).rows[0].n;
    const before = calls.length;
    const runs = await evalRuns(proSession, pro.orgId);
    const res = await runCli(['rebuild', '--json'], stack.env);
    expect(res.code).toBe(0);
    expect((await stack.db.query(`SELECT count(*)::int AS n FROM scores WHERE source = 'EVAL'`)).rows[0].n).toBe(scored);
    expect(calls.length).toBe(before);
    expect(await evalRuns(proSession, pro.orgId)).toBe(runs);
  });
});
