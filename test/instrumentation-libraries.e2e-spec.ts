import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import { resolve } from 'node:path';
import { attrs, exportOf, kv, kvlist, span, str } from '@app/otlp/testing/otlp-builders';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { bootstrap, send } from './support/api';
import { laterSeq } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

const QUESTION = 'What is the capital of France?';
const ANSWER = 'The capital of France is Paris.';

/** An OpenAI-compatible chat completions endpoint on loopback that answers every question the same way. */
async function startFakeOpenAI(): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-spanlog-e2e',
          object: 'chat.completion',
          created: 1767225600,
          model: 'gpt-4o-mini-2024-07-18',
          choices: [{ index: 0, message: { role: 'assistant', content: ANSWER, refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 23, completion_tokens: 7, total_tokens: 30 },
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1` };
}

/** Runs the instrumented application (test/support/instrumented-app.cjs) with one library; resolves with the trace id it made. */
async function runInstrumentedApp(library: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [resolve(__dirname, 'support', 'instrumented-app.cjs')], {
    env: { ...process.env, ...env, LIBRARY: library },
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the ${library} app exited with ${code}:\n${stderr}`);
  return (JSON.parse(stdout) as { traceId: string }).traceId;
}

describe('real instrumentation libraries, unmodified, exporting to Spanlog', () => {
  let stack: Stack;
  let key: string;
  let openai: { server: Server; baseUrl: string };

  beforeAll(async () => {
    [stack, openai] = await Promise.all([startStack(), startFakeOpenAI()]);
    key = (await bootstrap(stack, 'instrumented@spanlog.test', 'Instrumented', 'main')).apiKey;
  }, 120_000);

  afterAll(async () => {
    openai?.server.close();
    await stack?.stop();
  });

  it.each([
    ['otel', '@opentelemetry/instrumentation-openai (content as OTLP log records)', 'gpt-4o-mini'],
    ['openinference', '@arizeai/openinference-instrumentation-openai', 'gpt-4o-mini-2024-07-18'],
    ['traceloop', '@traceloop/instrumentation-openai', 'gpt-4o-mini'],
    ['vercel', 'Vercel ai + @ai-sdk/openai', 'gpt-4o-mini'],
    ['langfuse', '@langfuse/tracing + @langfuse/otel, given only baseUrl and keys', 'gpt-4o-mini'],
  ])('%s: %s lands an LLM span with the model, 23/7 tokens, the question and the answer', async (library, _, model) => {
    const traceId = await runInstrumentedApp(library, {
      SPANLOG_URL: stack.baseUrl,
      SPANLOG_API_KEY: key,
      OPENAI_BASE_URL: openai.baseUrl,
    });
    const res = await send(stack, 'GET', `/api/v1/traces/${traceId}?minSeq=${encodeURIComponent(await laterSeq(stack, key))}`, {
      token: key,
    });
    expect(res.status).toBe(200);
    const llm = res.body.spans.filter((s: any) => s.type === 'LLM');
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({ model, promptTokens: 23, completionTokens: 7 });
    expect(JSON.stringify(llm[0].input)).toContain(QUESTION);
    expect(JSON.stringify(llm[0].output)).toContain(ANSWER);
  });

  it('Langfuse batch ingestion answers 207 per event: scores and SDK logs accepted, an unknown event type named', async () => {
    const at = new Date().toISOString();
    const traceId = `lf-${randomBytes(4).toString('hex')}`;
    const authorization = `Basic ${Buffer.from(`pk-lf-anything:${key}`).toString('base64')}`;
    const res = await send(stack, 'POST', '/api/public/ingestion', {
      headers: { authorization },
      body: {
        batch: [
          { id: 'e1', type: 'trace-create', timestamp: at, body: { id: traceId, name: 'lf trace' } },
          {
            id: 'e2',
            type: 'observation-create',
            timestamp: at,
            body: { id: `${traceId}-g`, traceId, type: 'GENERATION', name: 'chat', startTime: at, model: 'gpt-4o-mini' },
          },
          { id: 'e3', type: 'score-create', timestamp: at, body: { traceId, name: 'quality', value: 0.9 } },
          { id: 'e4', type: 'sdk-log', timestamp: at, body: { log: 'hello' } },
          { id: 'e5', type: 'dataset-run-item-create', timestamp: at, body: {} },
        ],
      },
    });
    expect(res.status).toBe(207);
    expect(res.body.successes).toEqual(['e1', 'e2', 'e3', 'e4'].map((id) => ({ id, status: 201 })));
    expect(res.body.errors).toEqual([expect.objectContaining({ id: 'e5', status: 400 })]);
    const stored = await send(stack, 'GET', `/api/v1/traces/${traceId}?minSeq=${encodeURIComponent(await laterSeq(stack, key))}`, {
      token: key,
    });
    expect(stored.body).toMatchObject({
      name: 'lf trace',
      spans: [{ type: 'LLM', model: 'gpt-4o-mini' }],
      scores: [{ name: 'quality', value: 0.9 }],
    });
  });

  it('OTLP logs without GenAI content are accepted and counted, and stored nowhere', async () => {
    const res = await send(stack, 'POST', '/api/v1/otel/v1/logs', {
      token: key,
      body: {
        resourceLogs: [
          {
            scopeLogs: [
              {
                logRecords: [{ body: { stringValue: 'user signed in' } }, { eventName: 'gen_ai.choice', body: { stringValue: 'no span' } }],
              },
            ],
          },
        ],
      },
    });
    expect(res).toEqual({ status: 200, body: { accepted: 2, attached: 0 } });
  });

  it('a log record dated in the future fills only what its span leaves empty, never what the span states itself', async () => {
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    const spanExport = exportOf([
      span({ traceId, spanId, parentSpanId: '', name: 'chat', attributes: attrs({ 'gen_ai.prompt': 'own prompt' }) }),
    ]);
    expect((await send(stack, 'POST', '/api/v1/otel/traces', { token: key, body: spanExport })).status).toBe(200);
    const in2099 = '4070908800000000000';
    const record = (eventName: string, body: unknown) => ({ timeUnixNano: in2099, traceId, spanId, eventName, body });
    const logs = await send(stack, 'POST', '/api/v1/otel/v1/logs', {
      token: key,
      body: {
        resourceLogs: [
          {
            scopeLogs: [
              {
                logRecords: [
                  record('gen_ai.user.message', kvlist(kv('content', str('from the log')))),
                  record('gen_ai.choice', kvlist(kv('message', kvlist(kv('content', str(ANSWER)))))),
                ],
              },
            ],
          },
        ],
      },
    });
    expect(logs.body).toEqual({ accepted: 2, attached: 2 });
    const stored = await send(stack, 'GET', `/api/v1/traces/${traceId}?minSeq=${encodeURIComponent(await laterSeq(stack, key))}`, {
      token: key,
    });
    expect(stored.body.spans[0].input).toBe('own prompt');
    expect(JSON.stringify(stored.body.spans[0].output)).toContain(ANSWER);
  });

  it('explain answers what each span would hold and why, and stores nothing; the CLI gives the same offline', async () => {
    const file = resolve(__dirname, '..', 'libs', 'otlp', 'src', 'testing', 'captured', 'openinference-instrumentation-openai.json');
    const body = JSON.parse(readFileSync(file, 'utf8')).requests[0].body;
    const explained = await send(stack, 'POST', '/api/v1/otel/traces?explain=true', { token: key, body });
    expect(explained.status).toBe(200);
    expect(explained.body.spans[0].span.model).toEqual({
      value: 'gpt-4o-mini-2024-07-18',
      from: ['llm.model_name'],
      rule: 'OpenInference',
    });
    const traceId = explained.body.spans[0].traceId;
    expect(
      (await send(stack, 'GET', `/api/v1/traces/${traceId}?minSeq=${encodeURIComponent(await laterSeq(stack, key))}`, { token: key }))
        .status,
    ).toBe(404);
    const bodyFile = resolve(tmpdir(), `spanlog-explain-${randomBytes(4).toString('hex')}.json`);
    writeFileSync(bodyFile, JSON.stringify(body));
    const cli = await runCli(['otlp', 'explain', bodyFile, '--json'], stack.env);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(explained.body);
  });
});
