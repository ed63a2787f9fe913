import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TraceWebhookRequestBody } from '@app/domain';
import { type Session, type Tenant, bootstrap, data, eventually, login, mutate, query, send } from './support/api';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { type Stack, startStack } from './support/stack';

interface TraceCall {
  /** When the receiver got it (ms). */
  at: number;
  headers: IncomingHttpHeaders;
  raw: string;
  body: TraceWebhookRequestBody;
}

const QUIET_SECONDS = 5;

/**
 * A trace-level webhook evaluator end to end (issue 29): it is called once per trace, only after
 * the root span ended and nothing of the trace arrived for `quietSeconds`, with the trace's
 * input and output; a late span calls it once more, and its newer score replaces the first.
 */
describe('trace-level evaluators', () => {
  let stack: Stack;
  let receiver: Server;
  let base: string;
  let tenant: Tenant;
  let session: Session;
  const calls: TraceCall[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        calls.push({ at: Date.now(), headers: req.headers, raw: text, body: JSON.parse(text) });
        // The first run fails the trace, the second passes it: the score shows which one it holds.
        const answer = calls.length === 1 ? { score: 0.2, pass: false, reason: 'no refund policy cited' } : { score: 0.9, pass: true };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack = await startStack();
    tenant = await bootstrap(stack, 'trace-evals@spanlog.test', 'Trace evals', 'p', 'pro');
    session = await login(stack, 'trace-evals@spanlog.test');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  /** Ingests events; resolves with the time the API accepted them, after which the trace had that data. */
  const sendEvents = async (batch: object[]): Promise<number> => {
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, { batch });
    return Date.now();
  };
  const traceScores = async (traceId: string) => {
    const res = await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey });
    return res.status === 200
      ? (res.body.scores as { id: string; name: string; value: unknown; spanId: string | null; comment: string | null; metadata: object }[])
      : [];
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('calls a trace evaluator once after the quiet window, with the trace, and once more after a late span, replacing its score', async () => {
    const evaluator = data(
      await mutate(stack, session.access_token, 'evaluator.create', {
        projectId: tenant.projectId,
        name: 'task done',
        url: `${base}/trace`,
        target: 'trace',
        quietSeconds: QUIET_SECONDS,
      }),
    ) as { id: string; target: string; quietSeconds: number; signingSecret: string };
    expect(evaluator).toMatchObject({ target: 'trace', quietSeconds: QUIET_SECONDS });

    const traceId = `trace-eval-${randomUUID()}`;
    const start = new Date().toISOString();
    await sendEvents([
      {
        id: `${traceId}-t`,
        type: 'trace-create',
        timestamp: start,
        body: { id: traceId, name: 'support agent', input: { question: 'refund?' }, output: 'Yes, within 30 days.', userId: 'u-7' },
      },
      {
        id: `${traceId}-root`,
        type: 'span-create',
        timestamp: start,
        body: { id: `${traceId}-root`, traceId, name: 'agent', type: 'AGENT', startTime: start },
      },
      {
        id: `${traceId}-llm`,
        type: 'span-create',
        timestamp: start,
        body: {
          id: `${traceId}-llm`,
          traceId,
          parentObservationId: `${traceId}-root`,
          name: 'chat',
          type: 'LLM',
          startTime: start,
          endTime: start,
          output: 'Yes, within 30 days.',
        },
      },
    ]);
    // The root span is still open: the trace is not complete, however long it stays quiet.
    await sleep((QUIET_SECONDS + 2) * 1000);
    expect(calls).toHaveLength(0);

    const end = new Date().toISOString();
    const lastData = await sendEvents([
      { id: `${traceId}-root-end`, type: 'span-update', timestamp: end, body: { id: `${traceId}-root`, traceId, endTime: end } },
    ]);
    const [first] = await eventually(
      async () => calls,
      (c) => c.length > 0,
      30_000,
    );
    // Not before the quiet window from the last data of the trace.
    expect(first.at - lastData).toBeGreaterThanOrEqual(QUIET_SECONDS * 1000);
    expect(first.body).toMatchObject({
      spanId: null,
      target: 'trace',
      input: '{"question":"refund?"}',
      output: 'Yes, within 30 days.',
      metadata: { id: evaluator.id, name: 'task done', target: 'trace', quietSeconds: QUIET_SECONDS },
      expectedOutput: null,
      trace: { name: 'support agent', userId: 'u-7', spanCount: 2, spansLeftOut: 0 },
    });
    expect(first.body.trace.id).toBe(first.body.traceId);
    expect(first.body.trace.spans.map((s) => s.name).sort()).toEqual(['agent', 'chat']);
    expect(new Webhook(evaluator.signingSecret).verify(first.raw, first.headers as Record<string, string>)).toEqual(first.body);

    const [score] = await eventually(
      () => traceScores(traceId),
      (s) => s.length > 0,
    );
    expect(score).toMatchObject({
      name: 'task done',
      value: 0.2,
      spanId: null,
      comment: 'no refund policy cited',
      metadata: { pass: false },
    });

    // A late span: evaluated once more, after its own quiet window, and the newer score replaces the older.
    const late = new Date().toISOString();
    const lateData = await sendEvents([
      {
        id: `${traceId}-late`,
        type: 'span-create',
        timestamp: late,
        body: {
          id: `${traceId}-late`,
          traceId,
          parentObservationId: `${traceId}-root`,
          name: 'followup',
          type: 'TOOL',
          startTime: late,
          endTime: late,
        },
      },
    ]);
    const second = (
      await eventually(
        async () => calls,
        (c) => c.length > 1,
        30_000,
      )
    )[1];
    expect(second.at - lateData).toBeGreaterThanOrEqual(QUIET_SECONDS * 1000);
    expect(second.body.trace.spanCount).toBe(3);
    const replaced = await eventually(
      () => traceScores(traceId),
      (s) => s.some((c) => c.value === 0.9),
    );
    expect(replaced).toHaveLength(1);
    expect(replaced[0]).toMatchObject({ id: score.id, name: 'task done', value: 0.9, comment: '', metadata: { pass: true } });

    // Two runs are all a trace gets: more data calls nothing.
    const later = new Date().toISOString();
    await sendEvents([
      { id: `${traceId}-later`, type: 'span-update', timestamp: later, body: { id: `${traceId}-late`, traceId, output: 'more' } },
    ]);
    await sleep((QUIET_SECONDS + 3) * 1000);
    expect(calls).toHaveLength(2);
    const jobs = (
      await stack.db.query(`SELECT trace_run, status FROM eval_jobs WHERE evaluator_id = $1 ORDER BY trace_run`, [evaluator.id])
    ).rows;
    expect(jobs).toEqual([
      { trace_run: 1, status: 'done' },
      { trace_run: 2, status: 'done' },
    ]);
    // The run log shows both runs, on the trace.
    const runs = data(await query(stack, session.access_token, 'evaluator.runs', { projectId: tenant.projectId, id: evaluator.id }))
      .data as { spanId: string | null; status: string; score: number }[];
    expect(runs).toMatchObject([
      { spanId: null, status: 'succeeded', score: 0.9 },
      { spanId: null, status: 'succeeded', score: 0.2 },
    ]);

    // A test run on the trace sends the trace body a trace job sends, and stores nothing.
    const tried = data(
      await mutate(stack, session.access_token, 'evaluator.test', { projectId: tenant.projectId, evaluatorId: evaluator.id, traceId }),
    );
    expect(tried).toMatchObject({ target: { spanId: null }, status: 'succeeded', score: 0.9, pass: true });
    expect(calls).toHaveLength(3);
    expect(calls[2].body).toMatchObject({ spanId: null, target: 'trace', output: 'Yes, within 30 days.', trace: { spanCount: 3 } });
    expect(await traceScores(traceId)).toHaveLength(1);
  }, 120_000);

  it('refuses a quiet window out of range, naming the field', async () => {
    const answer = await mutate(stack, session.access_token, 'evaluator.create', {
      projectId: tenant.projectId,
      name: 'too eager',
      url: `${base}/trace`,
      target: 'trace',
      quietSeconds: 1,
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('quietSeconds: must be an integer from 5 to 3600');
  });
});
