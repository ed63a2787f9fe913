import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PASSWORD, type Session, type Tenant, bootstrap, data, eventually, login, mutate, query, send } from './support/api';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { llmCallEvents } from './support/factories';
import { metricValue, scrapeMetrics } from './support/metrics';
import { Stack, runCli } from './support/stack';

interface ChatCall {
  /** When the call arrived (ms since the epoch). */
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: { model: string; messages: { role: string; content: string }[]; response_format: unknown };
}

/** The connection's key: it must reach the judge endpoint and nothing else. */
const API_KEY = `sk-judge-${randomUUID()}`;
const PROMPT = 'judge/faithfulness';

/**
 * LLM-as-a-judge evaluators end to end (issue 29) against an OpenAI-compatible server on
 * loopback: the compiled prompt carries the span's input and output, the call carries the
 * model and the connection's key, the score lands on the span; a 500 is retried; a reply as
 * content JSON and one as a tool call both score; an unreadable reply is a failed run with no
 * score; a span a dataset run item links gets its item's expected output; the CLI creates and
 * tests a judge; a test run refuses what the score config would; the run log shows every run,
 * sampled-out spans and a deleted connection included;
 * a judge with target 'trace' scores a whole trace once after its quiet window; the key is in
 * no RPC answer and no log line.
 */
describe('LLM judge evaluators', () => {
  let stack: Stack;
  let llm: Server;
  let base: string;
  let tenant: Tenant;
  let session: Session;
  let connectionId: string;
  /** A span a dataset run item links, judged by 'faithfulness'. */
  let linkedSpanId: string;
  const calls: ChatCall[] = [];
  /** Every RPC answer the test read, to look for the key in. */
  const answers: unknown[] = [];
  const configDir = mkdtempSync(join(tmpdir(), 'spanlog-judges-'));

  /** How the fake endpoint answers, by the model asked for; `n` counts that model's calls from 1. */
  const chat = (content: object | string | null, extra: object = {}) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'gpt-4.1-mini',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: typeof content === 'string' || content === null ? content : JSON.stringify(content),
          ...extra,
        },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 200, completion_tokens: 40, total_tokens: 240 },
  });
  const byModel: Record<string, (n: number) => { status: number; body: unknown }> = {
    'gpt-4.1-mini': () => ({ status: 200, body: chat({ score: 0.8, reasoning: 'faithful to the policy' }) }),
    'flaky-judge': (n) =>
      n === 1
        ? { status: 500, body: { error: { message: 'overloaded' } } }
        : {
            status: 200,
            body: chat(null, {
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'judgement', arguments: '{"score": true, "reasoning": "passes"}' } },
              ],
            }),
          },
    'garbled-judge': () => ({ status: 200, body: chat('I would say it is rather good.') }),
    'trace-judge': () => ({ status: 200, body: chat({ score: 0.3, reasoning: 'the agent cites no policy' }) }),
  };

  beforeAll(async () => {
    llm = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as ChatCall['body'];
        calls.push({ at: Date.now(), path: req.url ?? '', headers: req.headers, body });
        const answer = byModel[body.model]?.(calls.filter((c) => c.body.model === body.model).length) ?? {
          status: 404,
          body: 'no such model',
        };
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    });
    llm.listen(0, '127.0.0.1');
    await once(llm, 'listening');
    base = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
    // Debug logs, all kept: the key must be in none of them.
    stack = await Stack.start({ LOG_LEVEL: 'debug' }, { name: 'judges', keepOutput: true });
    tenant = await bootstrap(stack, 'judges@spanlog.test', 'Judges', 'p', 'pro');
    session = await login(stack, 'judges@spanlog.test');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => llm?.close(resolve));
    rmSync(configDir, { recursive: true, force: true });
  });

  const rpc = async (kind: 'query' | 'mutate', procedure: string, input: unknown) => {
    const answer = await (kind === 'query' ? query : mutate)(stack, session.access_token, procedure, input);
    answers.push(answer.body);
    return answer;
  };
  const createJudge = async (name: string, judge: object, extra: object = {}) =>
    data(await rpc('mutate', 'evaluator.create', { projectId: tenant.projectId, name, kind: 'llm-judge', judge, ...extra })) as {
      id: string;
    };
  const judgeOf = (model: string, over: object = {}) => ({ connectionId, model, prompt: { name: PROMPT }, scoreType: 'numeric', ...over });
  const runsOf = async (evaluatorId: string, status?: string) =>
    data(await rpc('query', 'evaluator.runs', { projectId: tenant.projectId, id: evaluatorId, ...(status && { status }) })).data as {
      status: string;
      reason: string | null;
      error: string | null;
      attempts: number;
      score: number | string | null;
      pass: boolean | null;
      comment: string | null;
      spanId: string | null;
      startedAt: string | null;
      finishedAt: string | null;
      judge: { model: string; promptTokens: number; completionTokens: number; cost: number | null } | null;
    }[];
  const spanScores = async (traceId: string) => {
    const res = await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey });
    return res.status === 200
      ? (res.body.scores as {
          name: string;
          value: unknown;
          dataType: string;
          source: string;
          comment: string | null;
          metadata: Record<string, unknown>;
          spanId: string;
        }[])
      : [];
  };
  /** A trace with one LLM call that has its input and output. */
  const llmCall = (traceId: string) => llmCallEvents(traceId, 'Yes, refunds are possible within 30 days.', { locale: 'en' });

  it('keeps the connection key out of every answer, and refuses judges that name what the project lacks, naming the field', async () => {
    const pushed = await send(stack, 'POST', '/api/v1/prompt-templates', {
      token: tenant.apiKey,
      body: {
        name: PROMPT,
        template: [
          { role: 'system', content: 'You judge whether an answer is faithful to the question.' },
          { role: 'user', content: 'Question: {{input}}\nAnswer: {{output}}\nMetadata: {{metadata}}\nExpected: {{expectedOutput}}' },
        ],
      },
    });
    expect(pushed.status).toBe(201);
    await send(stack, 'POST', '/api/v1/prompt-templates', {
      token: tenant.apiKey,
      body: { name: 'no-output', template: 'Rate {{input}}' },
    });

    const created = data(
      await rpc('mutate', 'llmConnection.create', {
        projectId: tenant.projectId,
        name: 'local',
        baseUrl: base,
        apiKey: API_KEY,
        headers: { 'X-Org': 'org-7' },
      }),
    );
    expect(created).toEqual({
      id: expect.any(String),
      projectId: tenant.projectId,
      name: 'local',
      baseUrl: base,
      headerNames: ['X-Org'],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    connectionId = created.id;
    expect(data(await rpc('query', 'llmConnection.list', { projectId: tenant.projectId }))).toEqual([created]);
    expect(
      data(await rpc('mutate', 'llmConnection.update', { projectId: tenant.projectId, id: connectionId, apiKey: API_KEY })),
    ).toMatchObject({
      id: connectionId,
    });
    // Sealed at rest.
    const [row] = (await stack.db.query('SELECT to_jsonb(c) AS row FROM llm_connections c WHERE id = $1', [connectionId])).rows;
    expect(JSON.stringify(row)).not.toContain(API_KEY);
    expect(JSON.stringify(row)).not.toContain('org-7');

    const refusal = async (judge: object, extra: object = {}) => {
      const res = await rpc('mutate', 'evaluator.create', {
        projectId: tenant.projectId,
        name: `j-${randomUUID()}`,
        kind: 'llm-judge',
        judge,
        ...extra,
      });
      expect(res.status).toBe(400);
      return res.body.error.message as string;
    };
    expect(await refusal(judgeOf('m', { connectionId: randomUUID() }))).toMatch(/^judge\.connectionId: this project has no LLM connection/);
    expect(await refusal(judgeOf('m', { prompt: { name: 'missing' } }))).toBe(
      'judge.prompt.name: this project has no prompt template "missing"',
    );
    expect(await refusal(judgeOf('m', { prompt: { name: 'no-output' } }))).toMatch(
      /^judge\.prompt: template "no-output" version 1 has no \{\{output\}\}/,
    );
    expect(await refusal(judgeOf('m', { scoreType: 'categorical' }))).toMatch(/^judge\.categories: is required for a categorical score/);
    const badUrl = await rpc('mutate', 'llmConnection.create', { projectId: tenant.projectId, name: 'x', baseUrl: 'ftp://x', apiKey: 'k' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.message).toMatch(/^baseUrl: /);
  });

  it('sends the compiled prompt with the model and key, scores content JSON and tool calls, retries a 500, and fails an unreadable reply without a score', async () => {
    const content = await createJudge('faithfulness', judgeOf('gpt-4.1-mini'));
    const flaky = await createJudge('passes', judgeOf('flaky-judge', { scoreType: 'boolean' }));
    const garbled = await createJudge('garbled', judgeOf('garbled-judge'));
    const sampledOut = await createJudge('never', judgeOf('gpt-4.1-mini'), { filter: { sampleRate: 0 } });
    const traceId = `judge-${randomUUID()}`;
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, { batch: llmCall(traceId) });

    const scores = await eventually(
      () => spanScores(traceId),
      (s) => s.length === 2,
      30_000,
    );
    const faithful = scores.find((s) => s.name === 'faithfulness');
    expect(faithful).toMatchObject({
      value: 0.8,
      dataType: 'NUMERIC',
      source: 'EVAL',
      comment: 'faithful to the policy',
      metadata: { judgeModel: 'gpt-4.1-mini' },
    });
    expect(faithful?.spanId).toEqual(expect.any(String));
    expect(scores.find((s) => s.name === 'passes')).toMatchObject({
      value: 1,
      source: 'EVAL',
      comment: 'passes',
      metadata: { pass: true },
    });

    const sent = calls.find((c) => c.body.model === 'gpt-4.1-mini');
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.headers['x-org']).toBe('org-7');
    expect(sent?.body.messages).toEqual([
      { role: 'system', content: 'You judge whether an answer is faithful to the question.' },
      {
        role: 'user',
        content:
          'Question: {"question":"Can I get a refund after 20 days?"}\nAnswer: Yes, refunds are possible within 30 days.\nMetadata: {"locale":"en"}\nExpected: ',
      },
    ]);
    expect(sent?.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'judgement', schema: { required: ['score', 'reasoning'] } },
    });
    expect(calls.filter((c) => c.body.model === 'flaky-judge')).toHaveLength(2);

    // The unreadable reply: a failed run with its reason, and no score.
    const [failed] = await eventually(
      () => runsOf(garbled.id),
      (runs) => runs.length === 1 && runs[0].status === 'failed',
    );
    expect(failed).toMatchObject({ reason: 'judge reply unreadable', score: null, attempts: 1 });
    expect(failed.error).toMatch(/the answer is not JSON: I would say it is rather good/);
    expect((await spanScores(traceId)).find((s) => s.name === 'garbled')).toBeUndefined();

    // The run log: every run with its status, attempts, timings and the judge's model, tokens and cost.
    const [ok] = await runsOf(content.id);
    expect(ok).toMatchObject({ status: 'succeeded', reason: null, attempts: 1, score: 0.8, comment: 'faithful to the policy' });
    expect(ok.judge).toEqual({ model: 'gpt-4.1-mini', promptTokens: 200, completionTokens: 40, cost: expect.any(Number) });
    expect(ok.judge?.cost).toBeCloseTo((200 * 0.4 + 40 * 1.6) / 1e6, 12);
    expect(Date.parse(ok.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(ok.startedAt!));
    expect(
      await eventually(
        () => runsOf(flaky.id),
        (r) => r[0]?.status === 'succeeded',
      ),
    ).toMatchObject([{ attempts: 2, score: 1, pass: true }]);
    expect(await runsOf(sampledOut.id)).toMatchObject([{ status: 'skipped', reason: 'sampled out', attempts: 0 }]);
    expect(await runsOf(content.id, 'failed')).toEqual([]);
    // Every started run is counted, a failed one too; the sampled-out one is not.
    expect(
      await eventually(
        async () => data(await rpc('query', 'usage.get', { orgId: tenant.orgId })).evalRuns as number,
        (n) => n === 3,
      ),
    ).toBe(3);
    const { families } = await scrapeMetrics(stack.processorMetricsUrl);
    expect(metricValue(families, 'spanlog_evaluator_runs_total', { kind: 'llm-judge', outcome: 'succeeded' })).toBe(2);
    expect(metricValue(families, 'spanlog_evaluator_runs_total', { kind: 'llm-judge', outcome: 'failed' })).toBe(1);

    // The same log from the command line.
    const env: NodeJS.ProcessEnv = { ...stack.env, XDG_CONFIG_HOME: configDir };
    expect(
      (await runCli(['login', '--email', 'judges@spanlog.test', '--password', PASSWORD, '--api', stack.baseUrl, '--json'], env)).code,
    ).toBe(0);
    const cli = await runCli(['evaluators', 'runs', garbled.id, '--project', tenant.projectId, '--json'], env);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({
      data: [{ status: 'failed', reason: 'judge reply unreadable' }],
      meta: { nextCursor: null },
    });
    const human = await runCli(['evaluators', 'runs', content.id, '--project', tenant.projectId], env);
    expect(human.stdout).toMatch(/succeeded {2}- {2}1 attempt {2}score 0\.8 {2}gpt-4\.1-mini 200\+40 tokens/);

    // A test run answers what it would score and stores nothing: no run, no score, no eval run counted.
    const spanId = faithful!.spanId;
    const tried = data(await rpc('mutate', 'evaluator.test', { projectId: tenant.projectId, evaluatorId: content.id, spanId }));
    expect(tried).toMatchObject({
      target: { spanId },
      status: 'succeeded',
      score: 0.8,
      comment: 'faithful to the policy',
      attempts: 1,
      judge: { model: 'gpt-4.1-mini', promptTokens: 200, completionTokens: 40 },
    });
    const unsaved = data(
      await rpc('mutate', 'evaluator.test', {
        projectId: tenant.projectId,
        config: { name: 'draft', kind: 'llm-judge', judge: judgeOf('garbled-judge') },
        traceId,
      }),
    );
    expect(unsaved).toMatchObject({ target: { spanId: null }, status: 'failed', reason: 'judge reply unreadable', score: null });
    // Read as a trace job reads it: a trace without input or output has its root span's.
    expect(calls.filter((c) => c.body.model === 'garbled-judge').at(-1)?.body.messages[1].content).toMatch(
      /^Question: \{"question":"Can I get a refund after 20 days\?"\}\nAnswer: Yes, refunds are possible within 30 days\.\n/,
    );
    expect(await runsOf(content.id)).toHaveLength(1);
    expect(await spanScores(traceId)).toHaveLength(2);
    expect(data(await rpc('query', 'usage.get', { orgId: tenant.orgId })).evalRuns).toBe(3);
    const both = await rpc('mutate', 'evaluator.test', { projectId: tenant.projectId, evaluatorId: content.id, spanId, traceId });
    expect(both.body.error.message).toBe('spanId: give exactly one of spanId and traceId');

    for (const e of [flaky, garbled, sampledOut]) await rpc('mutate', 'evaluator.delete', { projectId: tenant.projectId, id: e.id });
  });

  it('fills {{expectedOutput}} with the expected output of the dataset item a run item links the span to, as the run linked it', async () => {
    const [faithfulness] = (
      data(await rpc('query', 'evaluator.list', { projectId: tenant.projectId })) as { id: string; name: string }[]
    ).filter((e) => e.name === 'faithfulness');
    const expected = 'Yes: refunds are possible within 30 days of purchase.';
    const pushItem = async (expectedOutput: string) =>
      expect(
        (
          await send(stack, 'POST', '/api/v1/datasets/refunds/items', {
            token: tenant.apiKey,
            body: { id: 'refund-20-days', input: { question: 'Can I get a refund after 20 days?' }, expectedOutput },
          })
        ).status,
      ).toBe(201);
    expect((await send(stack, 'POST', '/api/v1/datasets', { token: tenant.apiKey, body: { name: 'refunds' } })).status).toBe(201);
    await pushItem(expected);
    const traceId = `judge-${randomUUID()}`;
    // The run item first, as a span job reads the link when it runs.
    const linked = await send(stack, 'POST', '/api/public/dataset-run-items', {
      headers: { authorization: `Basic ${Buffer.from(`pk-lf-judges:${tenant.apiKey}`).toString('base64')}` },
      body: { runName: 'refund policy v2', datasetItemId: 'refund-20-days', traceId, observationId: `${traceId}-llm` },
    });
    expect(linked.status).toBe(200);
    await eventually(
      async () =>
        (await stack.db.query('SELECT count(*)::int AS n FROM dataset_run_items WHERE project_id = $1', [tenant.projectId])).rows[0]
          .n as number,
      (n) => n === 1,
    );
    // Changed after the run linked it: the judge reads the item as the experiment had it.
    await pushItem('changed after the run');
    const before = calls.length;
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, { batch: llmCall(traceId) });
    const [run] = await eventually(
      () => runsOf(faithfulness.id),
      (r) => r.length === 2 && r[0].status === 'succeeded',
      30_000,
    );
    const judged = calls.slice(before);
    expect(judged).toHaveLength(1);
    expect(judged[0].body.messages[1].content).toMatch(/\nExpected: Yes: refunds are possible within 30 days of purchase\.$/);
    // A test run reads the same link.
    linkedSpanId = run.spanId as string;
    const tried = data(
      await rpc('mutate', 'evaluator.test', { projectId: tenant.projectId, evaluatorId: faithfulness.id, spanId: linkedSpanId }),
    );
    expect(tried).toMatchObject({ status: 'succeeded', score: 0.8 });
    expect(calls.at(-1)?.body.messages[1].content).toBe(judged[0].body.messages[1].content);
  });

  it('creates a judge and tests it from the command line, and names the field the API refuses', async () => {
    const env: NodeJS.ProcessEnv = { ...stack.env, XDG_CONFIG_HOME: configDir };
    const cli = (...args: string[]) => runCli([...args, '--project', tenant.projectId], env);
    const judgeFlags = ['--kind', 'llm-judge', '--connection', connectionId, '--model', 'gpt-4.1-mini', '--prompt', PROMPT];
    const created = await cli('evaluators', 'create', '--name', 'cli judge', ...judgeFlags, '--score-type', 'numeric', '--disabled');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^[0-9a-f-]{36} {2}cli judge {2}disabled {2}llm-judge gpt-4\.1-mini on prompt judge\/faithfulness\n/);
    const id = created.stdout.slice(0, 36);

    const tried = await cli('evaluators', 'test', id, '--span', linkedSpanId);
    expect(tried.code).toBe(0);
    expect(tried.stdout).toMatch(/^succeeded {2}- {2}1 attempt {2}score 0\.8 {2}gpt-4\.1-mini 200\+40 tokens \$/);
    expect(tried.stdout).toContain(`on span ${linkedSpanId} of trace `);
    expect(tried.stdout).toContain('comment: faithful to the policy');
    expect(await runsOf(id)).toEqual([]);

    const refused = await cli('evaluators', 'create', '--name', 'cli tone', ...judgeFlags, '--score-type', 'categorical');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^spanlog: judge\.categories: is required for a categorical score[^\n]*\(400 BAD_REQUEST\)\n$/);
    await rpc('mutate', 'evaluator.delete', { projectId: tenant.projectId, id });
  });

  it("judges a trace once after its quiet window, with the trace's input and output, and logs the run; a score its config refuses is not written", async () => {
    const quietSeconds = 5;
    const judge = await createJudge('trace faithfulness', judgeOf('trace-judge'), { target: 'trace', quietSeconds });
    // A span judge of the agent span whose score its config (issue 30) refuses: no score, a failed run saying why.
    data(await rpc('mutate', 'scoreConfig.create', { projectId: tenant.projectId, name: 'capped', dataType: 'NUMERIC', maxValue: 0.5 }));
    const capped = await createJudge('capped', judgeOf('gpt-4.1-mini'), { filter: { spanTypes: ['AGENT'] } });
    const traceId = `judge-trace-${randomUUID()}`;
    const start = new Date().toISOString();
    // An agent span only: the LLM span judges above take nothing of this trace.
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        {
          id: `${traceId}-t`,
          type: 'trace-create',
          timestamp: start,
          body: {
            id: traceId,
            name: 'support agent',
            input: { question: 'Can I return shoes?' },
            output: 'Sure, any time.',
            metadata: { channel: 'chat' },
          },
        },
        {
          id: `${traceId}-root`,
          type: 'span-create',
          timestamp: start,
          body: { id: `${traceId}-root`, traceId, name: 'agent', type: 'AGENT', startTime: start, endTime: start, output: 'Sure.' },
        },
      ],
    });
    const lastData = Date.now();
    const judged = () => calls.filter((c) => c.body.model === 'trace-judge');
    const [first] = await eventually(
      async () => judged(),
      (c) => c.length > 0,
      30_000,
    );
    // Not before the quiet window from the trace's last data.
    expect(first.at - lastData).toBeGreaterThanOrEqual(quietSeconds * 1000);
    expect(first.body.messages[1]).toEqual({
      role: 'user',
      content: 'Question: {"question":"Can I return shoes?"}\nAnswer: Sure, any time.\nMetadata: {"channel":"chat"}\nExpected: ',
    });
    const scores = await eventually(
      () => spanScores(traceId),
      (s) => s.length > 0,
    );
    expect(scores).toEqual([
      expect.objectContaining({
        name: 'trace faithfulness',
        value: 0.3,
        source: 'EVAL',
        comment: 'the agent cites no policy',
        metadata: expect.objectContaining({ judgeModel: 'gpt-4.1-mini' }),
      }),
    ]);
    expect(scores[0].spanId ?? null).toBeNull();
    const runs = await eventually(
      () => runsOf(judge.id),
      (r) => r[0]?.status === 'succeeded',
    );
    expect(runs).toMatchObject([{ status: 'succeeded', spanId: null, score: 0.3, attempts: 1, judge: { model: 'gpt-4.1-mini' } }]);
    // Once: nothing more of the trace arrived, so no second run.
    expect(judged()).toHaveLength(1);
    const [refused] = await eventually(
      () => runsOf(capped.id),
      (r) => r[0]?.status === 'failed',
    );
    expect(refused).toMatchObject({ reason: 'score refused by its config', score: null, attempts: 1 });
    expect(refused.error).toMatch(/^score not written, its config refuses it: value: must be at most 0\.5/);
    // A test run tells the same: the failed run it would be, for the same reason, with no score.
    expect(
      data(await rpc('mutate', 'evaluator.test', { projectId: tenant.projectId, evaluatorId: capped.id, spanId: refused.spanId })),
    ).toMatchObject({ status: 'failed', reason: 'score refused by its config', error: refused.error, score: null, pass: null });
    expect((await spanScores(traceId)).map((s) => s.name)).toEqual(['trace faithfulness']);
    for (const e of [judge, capped]) await rpc('mutate', 'evaluator.delete', { projectId: tenant.projectId, id: e.id });
  });

  it('shows failed runs, not silence, once the connection is deleted', async () => {
    const [evaluator] = (
      data(await rpc('query', 'evaluator.list', { projectId: tenant.projectId })) as { id: string; name: string }[]
    ).filter((e) => e.name === 'faithfulness');
    expect(data(await rpc('mutate', 'llmConnection.delete', { projectId: tenant.projectId, id: connectionId }))).toEqual({
      id: connectionId,
      deleted: true,
    });
    const before = calls.length;
    const traceId = `judge-${randomUUID()}`;
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, { batch: llmCall(traceId) });
    const runs = await eventually(
      () => runsOf(evaluator.id),
      (r) => r.length === 3 && r[0].status === 'failed',
    );
    expect(runs[0]).toMatchObject({ status: 'failed', reason: 'connection missing', score: null, startedAt: null });
    expect(runs[0].error).toContain(connectionId);
    expect(calls.length).toBe(before);
    expect(await spanScores(traceId)).toEqual([]);
  });

  it('never shows the key: in no RPC answer and no log line of the API or the processor', () => {
    expect(answers.length).toBeGreaterThan(10);
    expect(JSON.stringify(answers)).not.toContain(API_KEY);
    const logs = stack.recentOutput('api') + stack.recentOutput('processor');
    // The logs are not empty: debug logging of both apps was read.
    expect(logs).toMatch(/evaluation done/);
    expect(logs).not.toContain(API_KEY);
    expect(logs).not.toContain(API_KEY.slice(9));
  });
});
