import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Tenant, bootstrap, eventually, send } from './support/api';
import { nativeBatch } from './support/factories';
import { NATIVE_TRACES, ingest, traceVisible } from './support/ingest';
import { type Stack, startStack } from './support/stack';

/** A long input, so that get_trace cuts it (MCP_LIMITS.fieldChars is 2,000) and get_span gives it whole. */
const LONG_INPUT = 'é'.repeat(3_000);

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { type: string; text: string }[])[0].text;

/** The MCP server (issue 32) through the SDK's own client over Streamable HTTP, as an agent would reach it. */
describe('MCP server', () => {
  let stack: Stack;
  let tenant: Tenant;
  let client: Client;
  const traceId = `mcp-${randomUUID()}`;

  const connect = async (apiKey: string) => {
    const c = new Client({ name: 'spanlog-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    });
    await c.connect(transport);
    return c;
  };

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'mcp@spanlog.test', 'MCP', 'agents');
    const { batch } = nativeBatch(1, 2, traceId);
    const [, root, child] = batch;
    // nativeBatch names the trace `${seed}-t0`; its second span hangs under the first.
    child.body.parentObservationId = root.body.id;
    child.body.input = LONG_INPUT;
    const seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, { batch });
    await traceVisible(stack, tenant.apiKey, `${traceId}-t0`, seq);
    client = await connect(tenant.apiKey);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await stack?.stop();
  });

  it('lists its read-only tools with their input schemas, and no write tool unless the deployment turns it on', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'get_dataset_run',
        'get_prompt',
        'get_span',
        'get_trace',
        'list_datasets',
        'list_scores',
        'project_overview',
        'search_traces',
      ].sort(),
    );
    const search = tools.find((t) => t.name === 'search_traces');
    expect(search?.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['name', 'tags', 'model', 'cursor', 'limit']));
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('search_traces finds the ingested trace by the trace list filters', async () => {
    const result = await client.callTool({ name: 'search_traces', arguments: { name: 'trace 0', limit: 10 } });
    expect(result.isError).toBeFalsy();
    const page = JSON.parse(text(result));
    expect(result.structuredContent).toEqual(page);
    expect(page.data.map((t: { externalId: string }) => t.externalId)).toEqual([`${traceId}-t0`]);
    expect(page.meta).toEqual({ nextCursor: null });
  });

  it('get_trace returns the span tree with large fields cut and their full size named; get_span gives a field whole', async () => {
    const result = await client.callTool({ name: 'get_trace', arguments: { traceId: `${traceId}-t0` } });
    expect(result.isError).toBeFalsy();
    const trace = JSON.parse(text(result));
    expect(trace).toMatchObject({ externalId: `${traceId}-t0`, name: 'trace 0', spanCount: 2, nextSpansCursor: null });
    const [root, child] = trace.spans;
    expect(root).toMatchObject({ externalId: `${traceId}-t0-s0`, parentId: null, name: 'span 0', input: { n: 0 }, durationMs: null });
    expect(root.truncated).toBeUndefined();
    expect(child).toMatchObject({
      externalId: `${traceId}-t0-s1`,
      parentId: root.id,
      input: 'é'.repeat(2_000),
      truncated: { input: 6_000 },
    });

    const span = await client.callTool({
      name: 'get_span',
      arguments: { traceId: `${traceId}-t0`, spanId: child.id, fields: ['input', 'parentId'] },
    });
    expect(JSON.parse(text(span))).toEqual({ input: LONG_INPUT, parentId: root.id });
  });

  it('answers the other reads with the REST routes answers and errors', async () => {
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      return { isError: !!result.isError, body: JSON.parse(text(result)) };
    };
    const day = Date.UTC(2026, 10, 1);
    const range = { from: new Date(day).toISOString(), to: new Date(day + 86_400_000).toISOString() };
    // The overview reads the stats read model, which the processor fills after the trace.
    const overview = await eventually(
      () => call('project_overview', range),
      (o) => o.body.totals?.traces === 1,
    );
    expect(overview).toMatchObject({ isError: false, body: { totals: { traces: 1, spans: 2 }, series: expect.any(Array) } });
    expect(await call('list_scores', { traceId: `${traceId}-t0` })).toEqual({
      isError: false,
      body: { data: [], meta: { nextCursor: null } },
    });
    expect(await call('list_datasets', {})).toMatchObject({ isError: false, body: { data: [], meta: { totalItems: 0 } } });
    expect(await call('get_prompt', { name: 'nowhere', label: 'staging' })).toEqual({
      isError: true,
      body: { error: { code: 'NOT_FOUND', message: 'prompt template "nowhere" has no version labelled "staging" in this project' } },
    });
    expect((await call('get_dataset_run', { datasetName: 'none', runName: 'r' })).body.error.code).toBe('NOT_FOUND');
  });

  it('refuses a bad or unknown argument as a tool error naming it, and an unknown tool as an MCP error naming it', async () => {
    const bad = await client.callTool({ name: 'search_traces', arguments: { limit: 1_000 } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(text(bad))).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'arguments.limit: must be a decimal integer from 1 to 100' },
    });

    const unknown = await client.callTool({ name: 'get_trace', arguments: { traceId: 'x', spanLimit: 5 } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('unknown field \\"spanLimit\\"');

    const missing = await client.callTool({ name: 'get_trace', arguments: { traceId: 'no-such-trace' } });
    expect(JSON.parse(text(missing)).error.code).toBe('NOT_FOUND');

    await expect(client.callTool({ name: 'drop_traces', arguments: {} })).rejects.toThrow(/unknown tool "drop_traces"/);
  });

  it('answers NUL or a lone surrogate in any string argument of any tool with a result, never an internal error', async () => {
    const { tools } = await client.listTools();
    const failures: string[] = [];
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
      const strings = Object.entries(properties)
        .filter(([, schema]) => schema.type === 'string')
        .map(([name]) => name);
      const base = Object.fromEntries(strings.map((name) => [name, 'walked']));
      for (const name of strings) {
        for (const bad of ['a\u0000b', 'a\ud800b']) {
          const args = { ...base, [name]: bad };
          const result = await client.callTool({ name: tool.name, arguments: args });
          if (/internal error|INTERNAL_ERROR/.test(text(result))) failures.push(`${tool.name} ${JSON.stringify(args)}: ${text(result)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses a wrong key with 401 before any MCP processing, and counts calls in the key bucket', async () => {
    await expect(connect('sk-not-a-key')).rejects.toThrow(/invalid or revoked API key/);
    const answer = await send(stack, 'POST', '/api/v1/mcp', {
      token: 'sk-not-a-key',
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(answer.status).toBe(401);

    const res = await fetch(`${stack.baseUrl}/api/v1/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length).toBe(8);
  });
});

/** The opt-in write tool, on a deployment that turns it on. */
describe('MCP server with SPANLOG_MCP_WRITE_TOOLS=1', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ SPANLOG_MCP_WRITE_TOOLS: '1' });
  }, 120_000);

  afterAll(() => stack?.stop());

  it('offers create_score, which records a score as POST /api/v1/scores does', async () => {
    const tenant = await bootstrap(stack, 'mcp-write@spanlog.test', 'MCP', 'writes');
    const traceId = `mcp-${randomUUID()}`;
    const seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, nativeBatch(1, 1, traceId));
    await traceVisible(stack, tenant.apiKey, `${traceId}-t0`, seq);
    const client = new Client({ name: 'spanlog-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tenant.apiKey}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'create_score')?.annotations?.readOnlyHint).toBe(false);
      const created = await client.callTool({
        name: 'create_score',
        arguments: { traceId: `${traceId}-t0`, name: 'helpful', value: 0.75 },
      });
      expect(created.isError).toBeFalsy();
      expect(JSON.parse(text(created))).toMatchObject({ accepted: 1 });
      const scores = await eventually(
        () => client.callTool({ name: 'list_scores', arguments: { traceId: `${traceId}-t0` } }),
        (r) => JSON.parse(text(r)).data.length === 1,
      );
      expect(JSON.parse(text(scores)).data[0]).toMatchObject({ name: 'helpful', value: 0.75 });
    } finally {
      await client.close();
    }
  });
});
