import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LangfuseClient } from '@langfuse/client';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { startActiveObservation } from '@langfuse/tracing';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import OpenAI from 'openai';
import type { RunResults } from '../apps/api/src/datasets/datasets.service';
import { type Tenant, bootstrap, data, login, query, send } from './support/api';
import { laterSeq } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

const CAPITALS: Record<string, string> = { France: 'Paris', Japan: 'Tokyo', Peru: 'Lima' };
/** The fake model is wrong about Peru, so the exact-match mean is 2/3. */
const ANSWERS: Record<string, string> = { France: 'Paris', Japan: 'Tokyo', Peru: 'Cusco' };
const DAY_MS = 86_400_000;

/** An OpenAI-compatible chat completions endpoint on loopback that names the capital of the country the question ends with. */
async function startFakeOpenAI(): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const question = (JSON.parse(body) as { messages: { content: string }[] }).messages.at(-1)?.content ?? '';
      const country = Object.keys(ANSWERS).find((c) => question.includes(c)) ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-datasets-e2e',
          object: 'chat.completion',
          created: 1767225600,
          model: 'gpt-4o-mini-2024-07-18',
          choices: [
            { index: 0, message: { role: 'assistant', content: ANSWERS[country] ?? 'unknown', refusal: null }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 },
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1` };
}

/**
 * Datasets and experiments (issue 31): the real `@langfuse/client` creates a dataset, reads it
 * and runs an experiment on it against Spanlog unchanged; Spanlog's own API shows the run's
 * results; rebuild and export keep the run items and retention removes them with their traces.
 */
describe('datasets and experiments', () => {
  let stack: Stack;
  let tenant: Tenant;
  let other: Tenant;
  let openai: { server: Server; baseUrl: string };
  let provider: NodeTracerProvider;
  let langfuse: LangfuseClient;

  beforeAll(async () => {
    [stack, openai] = await Promise.all([startStack(), startFakeOpenAI()]);
    tenant = await bootstrap(stack, 'datasets@spanlog.test', 'Datasets', 'evals', 'pro');
    other = await bootstrap(stack, 'datasets-other@spanlog.test', 'Datasets other', 'elsewhere', 'pro');
    const keys = { baseUrl: stack.baseUrl, publicKey: 'pk-lf-anything', secretKey: tenant.apiKey };
    provider = new NodeTracerProvider({ spanProcessors: [new LangfuseSpanProcessor(keys)] });
    provider.register();
    langfuse = new LangfuseClient(keys);
  }, 120_000);

  afterAll(async () => {
    await provider?.shutdown();
    openai?.server.close();
    await stack?.stop();
  });

  const v1 = (method: string, path: string, body?: unknown, key = tenant.apiKey) => send(stack, method, path, { token: key, body });
  const runResults = async (dataset: string, run: string): Promise<RunResults> => {
    const seq = encodeURIComponent(await laterSeq(stack, tenant.apiKey));
    const res = await v1('GET', `/api/v1/datasets/${dataset}/runs/${run}?minSeq=${seq}`);
    expect(res.status).toBe(200);
    return res.body as RunResults;
  };

  it('runs an experiment with the real Langfuse client: run items link every item to its trace, Spanlog shows outputs, scores and means', async () => {
    await langfuse.api.datasets.create({ name: 'capitals', description: 'one question per country', metadata: { owner: 'e2e' } });
    for (const [country, capital] of Object.entries(CAPITALS))
      await langfuse.api.datasetItems.create({
        datasetName: 'capitals',
        id: `capital-${country}`,
        input: { country },
        expectedOutput: capital,
      });

    const dataset = await langfuse.dataset.get('capitals');
    expect(dataset).toMatchObject({ name: 'capitals', description: 'one question per country', metadata: { owner: 'e2e' } });
    expect(dataset.items.map((i) => i.id).sort()).toEqual(['capital-France', 'capital-Japan', 'capital-Peru']);

    const client = new OpenAI({ baseURL: openai.baseUrl, apiKey: 'sk-datasets-e2e' });
    const result = await dataset.runExperiment({
      name: 'capitals baseline',
      runName: 'baseline',
      description: 'gpt-4o-mini, no system prompt',
      task: async ({ input }) =>
        startActiveObservation(
          'chat gpt-4o-mini',
          async (generation) => {
            const question = `What is the capital of ${(input as { country: string }).country}?`;
            generation.update({ model: 'gpt-4o-mini', input: [{ role: 'user', content: question }] });
            const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] });
            const text = answer.choices[0].message.content ?? '';
            generation.update({
              output: text,
              usageDetails: { input: answer.usage?.prompt_tokens ?? 0, output: answer.usage?.completion_tokens ?? 0 },
            });
            return text;
          },
          { asType: 'generation' },
        ),
      evaluators: [
        async ({ output, expectedOutput }) => ({ name: 'exact_match', value: output === expectedOutput ? 1 : 0 }),
        async ({ output }) => ({ name: 'answer_length', value: String(output).length, comment: 'characters' }),
      ],
    });
    await provider.forceFlush();
    expect(result.itemResults).toHaveLength(3);
    expect(result.datasetRunId).toEqual(expect.any(String));

    const run = await runResults('capitals', 'baseline');
    expect(run).toMatchObject({
      id: result.datasetRunId,
      name: 'baseline',
      description: 'gpt-4o-mini, no system prompt',
      datasetName: 'capitals',
    });
    expect(run.items.map((i) => i.datasetItemId)).toEqual(['capital-France', 'capital-Japan', 'capital-Peru']);
    const traceOf = new Map(result.itemResults.map((r) => [(r.item as { id: string }).id, r.traceId as string]));
    for (const item of run.items) {
      const country = item.datasetItemId.replace('capital-', '');
      expect(item.traceId.replace(/-/g, '')).toBe(traceOf.get(item.datasetItemId));
      expect(item.output).toBe(ANSWERS[country]);
      expect(item.expectedOutput).toBe(CAPITALS[country]);
      expect(item.totalTokens).toBe(22);
      expect(item.latencyMs).toEqual(expect.any(Number));
      expect(item.scores.map((s) => [s.name, s.value])).toEqual([
        ['answer_length', ANSWERS[country].length],
        ['exact_match', ANSWERS[country] === CAPITALS[country] ? 1 : 0],
      ]);
    }
    expect(run.aggregates).toMatchObject({ count: 3, latencyMs: { p50: expect.any(Number), p95: expect.any(Number) }, totalTokens: 66 });
    expect(run.aggregates.scores).toEqual([
      { name: 'answer_length', mean: (5 + 5 + 5) / 3, count: 3 },
      { name: 'exact_match', mean: 2 / 3, count: 3 },
    ]);

    // Langfuse's own read of the run answers every run item, by the OTel ids the client knows.
    const fetched = await langfuse.api.datasets.getRun('capitals', 'baseline');
    expect(fetched.datasetRunItems.map((i) => [i.datasetItemId, i.traceId]).sort()).toEqual([...traceOf.entries()].sort());
    expect((await langfuse.api.datasets.getRuns('capitals')).data.map((r) => r.name)).toEqual(['baseline']);
    // The link the client prints opens the trace in the dashboard.
    expect(await langfuse.getTraceUrl(traceOf.get('capital-France') as string)).toBe(
      `${stack.baseUrl}/project/${tenant.projectId}/traces/${traceOf.get('capital-France')}`,
    );
  });

  it('refuses what it cannot take, naming the dataset, the item or the limit', async () => {
    expect(await v1('GET', '/api/v1/datasets/nowhere')).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'dataset "nowhere" not found in this project' } },
    });
    expect((await v1('POST', '/api/v1/datasets/nowhere/items', { input: 1 })).body.error.message).toContain('"nowhere"');
    // An item of another project is unknown here: 404, and nothing about it.
    const basicOther = `Basic ${Buffer.from(`pk-lf-x:${other.apiKey}`).toString('base64')}`;
    const runItem = await fetch(`${stack.baseUrl}/api/public/dataset-run-items`, {
      method: 'POST',
      headers: { authorization: basicOther, 'content-type': 'application/json' },
      body: JSON.stringify({ runName: 'steal', datasetItemId: 'capital-France', traceId: 'a'.repeat(32) }),
    });
    expect(runItem.status).toBe(404);
    expect(await runItem.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'dataset item "capital-France" not found in this project' },
    });

    await v1('POST', '/api/v1/datasets', { name: 'limits' });
    const big = await v1('POST', '/api/v1/datasets/limits/items', { items: [{ input: 'ok' }, { input: 'x'.repeat(1024 * 1024) }] });
    expect(big).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    expect(big.body.error.message).toMatch(/^items\[1\]: is \d+ bytes/);
    const many = await v1('POST', '/api/v1/datasets/limits/items', { items: Array.from({ length: 1_001 }, (_, i) => ({ input: i })) });
    expect(many).toMatchObject({
      status: 413,
      body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'items has 1001 items; at most 1000 are allowed' } },
    });
    expect(await v1('POST', '/api/v1/datasets/limits/items', { items: [{ status: 'GONE' }] })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', message: 'items[0].status: must be one of ACTIVE, ARCHIVED' } },
    });
    // 1,000 items in one request, idempotent by id.
    const thousand = { items: Array.from({ length: 1_000 }, (_, i) => ({ id: `n${i}`, input: i })) };
    expect(await v1('POST', '/api/v1/datasets/limits/items', thousand)).toMatchObject({ status: 201, body: { accepted: 1_000 } });
    expect(await v1('POST', '/api/v1/datasets/limits/items', thousand)).toMatchObject({ status: 201, body: { accepted: 1_000 } });
    expect((await v1('GET', '/api/v1/datasets/limits/items?limit=1')).body.meta).toEqual({
      page: 1,
      limit: 1,
      totalItems: 1_000,
      totalPages: 1_000,
    });
  });

  it('the CLI lists, pushes and reads datasets and runs with an API key', async () => {
    const env = { ...stack.env, SPANLOG_API_KEY: tenant.apiKey };
    const file = join(tmpdir(), `spanlog-datasets-${process.pid}.jsonl`);
    writeFileSync(
      file,
      ['{"id":"q1","input":"2+2","expectedOutput":"4"}', '', '{"id":"q2","input":"3+3","expectedOutput":"6"}'].join('\n'),
    );
    const push = await runCli(['datasets', 'push', 'arithmetic', file, '--json', '--api', stack.baseUrl], env);
    expect(push).toMatchObject({ code: 0 });
    expect(JSON.parse(push.stdout)).toEqual({ dataset: 'arithmetic', accepted: 2, ids: ['q1', 'q2'] });

    const list = await runCli(['datasets', 'list', '--json', '--api', stack.baseUrl], env);
    expect(JSON.parse(list.stdout).data.map((d: { name: string }) => d.name)).toEqual(['arithmetic', 'capitals', 'limits']);
    const get = await runCli(['datasets', 'get', 'arithmetic', '--json', '--api', stack.baseUrl], env);
    expect(JSON.parse(get.stdout)).toMatchObject({
      name: 'arithmetic',
      items: [
        { id: 'q1', input: '2+2' },
        { id: 'q2', input: '3+3' },
      ],
    });
    const runs = await runCli(['datasets', 'runs', 'capitals', '--json', '--api', stack.baseUrl], env);
    expect(JSON.parse(runs.stdout).data.map((r: { name: string }) => r.name)).toEqual(['baseline']);
    const run = await runCli(['datasets', 'run', 'capitals', 'baseline', '--api', stack.baseUrl], env);
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('capitals / baseline: 3 items');
    expect(run.stdout).toContain('exact_match: mean 0.6666666666666666 over 3');
    const missing = await runCli(['datasets', 'get', 'nowhere', '--api', stack.baseUrl], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('dataset "nowhere" not found in this project');
  }, 240_000);

  it('the dashboard RPC reads datasets, items, runs, a run and two runs compared per item, for members only', async () => {
    const dataset = await langfuse.dataset.get('capitals');
    await dataset.runExperiment({
      name: 'capitals shouting',
      runName: 'shouting',
      task: async ({ input }) => ANSWERS[(input as { country: string }).country].toUpperCase(),
      evaluators: [async ({ output, expectedOutput }) => ({ name: 'exact_match', value: output === expectedOutput ? 1 : 0 })],
      // A score of the run as a whole: the client sends it with the run's id (`datasetRunId`) and no trace.
      runEvaluators: [
        async ({ itemResults }) => ({
          name: 'pass_rate',
          value: itemResults.filter((r) => r.output === r.item.expectedOutput).length / itemResults.length,
          comment: 'items answered exactly',
        }),
      ],
    });
    await provider.forceFlush();
    expect((await runResults('capitals', 'shouting')).aggregates).toMatchObject({
      count: 3,
      scores: [{ name: 'exact_match', mean: 0, count: 3 }],
    });

    const session = await login(stack, 'datasets@spanlog.test');
    const rpc = (procedure: string, input: Record<string, unknown>) =>
      query(stack, session.access_token, procedure, { projectId: tenant.projectId, ...input });
    expect(data(await rpc('dataset.list', {})).data.map((d: { name: string }) => d.name)).toEqual(['arithmetic', 'capitals', 'limits']);
    expect(data(await rpc('dataset.get', { name: 'capitals' }))).toMatchObject({ name: 'capitals', metadata: { owner: 'e2e' } });
    expect(data(await rpc('dataset.items', { name: 'capitals', limit: 2 })).meta).toEqual({
      page: 1,
      limit: 2,
      totalItems: 3,
      totalPages: 2,
    });
    expect(data(await rpc('dataset.runs', { name: 'capitals' })).data.map((r: { name: string }) => r.name)).toEqual([
      'shouting',
      'baseline',
    ]);
    const run = data<RunResults>(await rpc('dataset.run', { name: 'capitals', runName: 'baseline' }));
    expect(run.aggregates.scores.find((m) => m.name === 'exact_match')).toEqual({ name: 'exact_match', mean: 2 / 3, count: 3 });

    const shouting = data<RunResults>(await rpc('dataset.run', { name: 'capitals', runName: 'shouting' }));
    expect(shouting.scores).toEqual([{ name: 'pass_rate', value: 0, comment: 'items answered exactly', timestamp: expect.any(String) }]);

    const compared = data(await rpc('dataset.compare', { name: 'capitals', runNames: ['baseline', 'shouting'] }));
    expect(compared.runs.map((r: { name: string; aggregates: { count: number } }) => [r.name, r.aggregates.count])).toEqual([
      ['baseline', 3],
      ['shouting', 3],
    ]);
    expect(
      compared.items.map((row: { datasetItemId: string; results: { output: unknown }[] }) => [
        row.datasetItemId,
        row.results.map((r) => r.output),
      ]),
    ).toEqual([
      ['capital-France', ['Paris', 'PARIS']],
      ['capital-Japan', ['Tokyo', 'TOKYO']],
      ['capital-Peru', ['Cusco', 'CUSCO']],
    ]);
    expect((await rpc('dataset.compare', { name: 'capitals', runNames: ['baseline'] })).status).toBe(400);
    const stranger = await login(stack, 'datasets-other@spanlog.test');
    expect((await query(stack, stranger.access_token, 'dataset.get', { projectId: tenant.projectId, name: 'capitals' })).status).toBe(403);
  });

  it('keeps run items through a rebuild and in events export, and retention removes them with their traces', async () => {
    const before = await runResults('capitals', 'baseline');
    const rebuilt = await runCli(['rebuild', 'telemetry', '--json'], stack.env);
    expect(rebuilt).toMatchObject({ code: 0 });
    expect(await runResults('capitals', 'baseline')).toEqual(before);

    const exported = await runCli(['events', 'export', '--org', tenant.orgId, '--project', tenant.projectId], stack.env);
    expect(exported).toMatchObject({ code: 0 });
    const runItemLines = exported.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { schema: string; data: { runItems: { runId: string; datasetItemId: string }[] } })
      .filter((l) => l.schema === 'ingest.run-items/v1');
    const baselineItems = runItemLines.flatMap((l) => l.data.runItems.filter((r) => r.runId === before.id));
    expect(baselineItems.map((r) => r.datasetItemId).sort()).toEqual(['capital-France', 'capital-Japan', 'capital-Peru']);

    // Pro keeps 30 days: 31 days on, the traces go, and their run items with them; the dataset and run stay.
    const retention = await runCli(
      ['admin', 'retention', 'run', '--now', new Date(Date.now() + 31 * DAY_MS).toISOString(), '--json'],
      stack.env,
    );
    expect(retention).toMatchObject({ code: 0 });
    const after = await runResults('capitals', 'baseline');
    expect(after).toMatchObject({ name: 'baseline', items: [], aggregates: { count: 0 } });
    expect(
      (await stack.db.query('SELECT count(*)::int AS n FROM dataset_run_items WHERE project_id = $1', [tenant.projectId])).rows[0].n,
    ).toBe(0);
    expect((await v1('GET', '/api/v1/datasets/capitals/items')).body.meta.totalItems).toBe(3);
    // A run's own scores name no trace: they stay with the run.
    expect((await runResults('capitals', 'shouting')).scores.map((s) => s.name)).toEqual(['pass_rate']);
    // A rebuild after the deletion does not bring them back.
    expect(await runCli(['rebuild', 'telemetry', '--json'], stack.env)).toMatchObject({ code: 0 });
    expect((await runResults('capitals', 'baseline')).items).toEqual([]);
  }, 240_000);
});
