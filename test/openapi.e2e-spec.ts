import { randomBytes, randomUUID } from 'node:crypto';
import { exportOf, span } from '@app/otlp/testing/otlp-builders';
import { type HttpAnswer, type Tenant, bootstrap, login, send } from './support/api';
import type { OpenApiDocument } from '../apps/api/src/openapi/openapi-document';
import { documentProblems } from '../apps/api/src/openapi/testing/response-validator';
import { laterSeq } from './support/ingest';
import { validatorFor } from './support/openapi-check';
import { type Stack, startStack } from './support/stack';

/**
 * The OpenAPI document (issue 32): GET /api/v1/openapi.json is valid OpenAPI 3.1, and a call of
 * each REST route answers with a status and a body the document declares for it.
 */
describe('OpenAPI document', () => {
  let stack: Stack;
  let tenant: Tenant;
  const answers: { method: string; path: string; body: unknown; answer: HttpAnswer }[] = [];
  let document: OpenApiDocument;
  let documentAnswer: HttpAnswer;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'openapi@spanlog.test', 'OpenApi', 'p', 'pro');
    documentAnswer = await call('GET', '/api/v1/openapi.json', { auth: 'none' });
    document = documentAnswer.body as OpenApiDocument;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('serves a valid OpenAPI 3.1 document without an API key', () => {
    expect(documentAnswer.status).toBe(200);
    expect(document).toMatchObject({ openapi: '3.1.0', info: { title: 'Spanlog API' } });
    expect(documentProblems(document)).toEqual([]);
  });

  const basic = () => `Basic ${Buffer.from(`pk-lf-any:${tenant.apiKey}`).toString('base64')}`;
  async function call(
    method: string,
    path: string,
    init: { body?: unknown; auth?: 'bearer' | 'basic' | 'none'; token?: string; headers?: Record<string, string> } = {},
  ) {
    const auth = init.auth ?? 'bearer';
    const answer = await send(stack, method, path, {
      token: init.token ?? (auth === 'bearer' ? tenant.apiKey : undefined),
      body: init.body,
      headers: { ...init.headers, ...(auth === 'basic' && { authorization: basic() }) },
    });
    answers.push({ method, path, body: init.body, answer });
    return answer;
  }

  /** A call of an export: its status, and its Content-Type, which must be one the document declares for that status. */
  async function download(path: string, token: string) {
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    answers.push({ method: 'GET', path, body: undefined, answer: { status: res.status, body: null } });
    const declared = Object.keys((await validatorFor(stack.baseUrl)).operation('GET', path)?.op.responses[res.status]?.content ?? {});
    return { status: res.status, type: res.headers.get('content-type')?.split(';')[0], declared, text };
  }

  it('answers a call of every REST route', async () => {
    const at = new Date().toISOString();
    const traceId = `openapi-trace-${randomBytes(4).toString('hex')}`;
    const batch = await call('POST', '/api/v1/traces', {
      body: {
        batch: [
          { id: 'e1', type: 'trace-create', timestamp: at, body: { id: traceId, name: 'checkout', userId: 'u1', sessionId: 's1' } },
          {
            id: 'e2',
            type: 'generation-create',
            timestamp: at,
            body: { id: 'gen-1', traceId, name: 'chat', model: 'gpt-4o', startTime: at, endTime: at, usage: { input: 10, output: 5 } },
          },
        ],
      },
    });
    expect(batch.status).toBe(201);
    await call('POST', '/api/v1/scores', { body: { traceId, name: 'accuracy', value: 0.9 } });
    const hex = randomBytes(16).toString('hex');
    await call('POST', '/api/v1/otel/traces', { body: exportOf([span({ traceId: hex, spanId: randomBytes(8).toString('hex') })]) });
    await call('POST', '/api/v1/otel/v1/traces', {
      body: exportOf([span({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') })]),
    });
    await call('POST', '/api/v1/otel/logs', { body: { resourceLogs: [] } });
    await call('POST', '/api/v1/otel/v1/logs', { body: { resourceLogs: [] } });

    const seq = `minSeq=${encodeURIComponent(await laterSeq(stack, tenant.apiKey))}`;
    await call('GET', `/api/v1/traces?limit=5&${seq}`);
    await call('GET', `/api/v1/traces/${traceId}?${seq}`);
    await call('GET', `/api/v1/traces/${traceId}/spans?${seq}`);
    await call('GET', `/api/v1/traces/${traceId}/spans/gen-1?${seq}`);
    await call('GET', `/api/v1/traces/${traceId}/scores?${seq}`);
    await call('GET', `/api/v1/traces/nowhere`);
    await call('GET', `/api/v1/sessions?${seq}`);
    await call('GET', `/api/v1/sessions/s1?${seq}`);
    await call('GET', `/api/v1/users?${seq}`);
    await call('GET', '/api/v1/costs/unpriced');
    const jsonl = await download(`/api/v1/traces/export?format=jsonl&name=checkout&include=spans,scores`, tenant.apiKey);
    expect(jsonl).toMatchObject({ status: 200, type: 'application/x-ndjson', declared: expect.arrayContaining(['application/x-ndjson']) });
    expect(JSON.parse(jsonl.text)).toMatchObject({ name: 'checkout', spans: [{ name: 'chat' }] });
    const csv = await download(`/api/v1/traces/export?format=csv&name=checkout`, tenant.apiKey);
    expect(csv).toMatchObject({ status: 200, type: 'text/csv', declared: expect.arrayContaining(['text/csv']) });
    expect((await call('GET', '/api/v1/traces/export?format=xml')).body.error.message).toMatch(/^format: /);
    const tools = await call('POST', '/api/v1/mcp', {
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(tools.body.result.tools.map((t: { name: string }) => t.name)).toContain('search_traces');
    expect((await call('GET', '/api/v1/mcp')).status).toBe(405);
    expect((await call('DELETE', '/api/v1/mcp')).status).toBe(405);
    await call('POST', '/api/v1/route-model', { body: { candidates: ['gpt-4o', 'gpt-4o-mini'] } });
    await call('POST', '/api/v1/prompt-templates', { body: { name: 'greeting', template: 'Hello {{name}}', labels: ['production'] } });
    await call('GET', '/api/v1/prompt-templates?name=greeting');
    await call('POST', '/api/v1/datasets', { body: { name: 'capitals', description: 'one per country' } });
    await call('GET', '/api/v1/datasets');
    await call('GET', '/api/v1/datasets/capitals');
    await call('POST', '/api/v1/datasets/capitals/items', {
      body: { id: 'item-1', input: { country: 'France' }, expectedOutput: 'Paris' },
    });
    await call('GET', '/api/v1/datasets/capitals/items');
    await call('POST', '/api/public/dataset-run-items', {
      auth: 'basic',
      body: { runName: 'baseline', datasetItemId: 'item-1', traceId },
    });
    await call('GET', '/api/v1/datasets/capitals/runs');
    await call('GET', '/api/v1/datasets/capitals/runs/baseline');
    await call('GET', '/api/v1/health', { auth: 'none' });

    // Langfuse's routes, Basic and Bearer.
    await call('POST', '/api/public/v2/datasets', { auth: 'basic', body: { name: 'lf-set', metadata: { a: 1 } } });
    await call('GET', '/api/public/v2/datasets', { auth: 'basic' });
    await call('GET', '/api/public/v2/datasets/lf-set', { auth: 'basic' });
    await call('POST', '/api/public/dataset-items', { auth: 'basic', body: { datasetName: 'lf-set', id: 'lf-item', input: 'q' } });
    await call('GET', '/api/public/dataset-items?datasetName=lf-set', { auth: 'basic' });
    await call('GET', '/api/public/dataset-items/lf-item', { auth: 'basic' });
    await call('GET', '/api/public/datasets/capitals/runs', { auth: 'basic' });
    await call('GET', '/api/public/datasets/capitals/runs/baseline', { auth: 'basic' });
    await call('GET', '/api/public/projects', { auth: 'basic' });
    await call('GET', '/api/public/models', { auth: 'basic' });
    const model = await call('POST', '/api/public/models', {
      auth: 'basic',
      body: { modelName: 'mine', matchPattern: '(?i)^mine$', unit: 'TOKENS', inputPrice: 1e-6 },
    });
    await call('GET', `/api/public/models/${model.body?.id}`, { auth: 'basic' });
    await call('DELETE', `/api/public/models/${model.body?.id}`, { auth: 'basic' });
    const config = await call('POST', '/api/public/score-configs', {
      auth: 'basic',
      body: { name: 'quality', dataType: 'NUMERIC', minValue: 0, maxValue: 1 },
    });
    await call('GET', '/api/public/score-configs', { auth: 'basic' });
    await call('GET', `/api/public/score-configs/${config.body?.id}`, { auth: 'basic' });
    await call('GET', `/api/public/score-configs/00000000-0000-4000-8000-000000000000`, { auth: 'basic' });
    await call('POST', '/api/public/otel/v1/traces', {
      auth: 'basic',
      body: exportOf([span({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') })]),
    });
    await call('POST', '/api/public/ingestion', {
      auth: 'basic',
      body: { batch: [{ id: 'l1', type: 'trace-create', timestamp: at, body: { id: 'lf-trace', name: 'lf' } }] },
    });
    await call('GET', '/api/public/v2/prompts/greeting', { auth: 'basic' });
    await call('GET', '/api/public/v2/prompts/nothing', { auth: 'basic' });

    const session = await login(stack, 'openapi@spanlog.test');
    await call('POST', '/api/v1/auth/login', { auth: 'none', body: { email: 'openapi@spanlog.test', password: 'wrong' } });
    await call('POST', '/api/v1/auth/refresh', { auth: 'none', body: { refresh_token: session.refresh_token } });
    const projectExport = `/api/v1/projects/${tenant.projectId}/traces/export?format=csv&name=checkout`;
    expect(await download(projectExport, session.access_token)).toMatchObject({ status: 200, type: 'text/csv' });
    const elsewhere = `/api/v1/projects/${randomUUID()}/traces/export?format=jsonl`;
    expect((await call('GET', elsewhere, { token: session.access_token })).status).toBe(403);
    await call('POST', '/api/v1/auth/logout', { token: session.access_token });
    await call('GET', '/api/v1/traces', { auth: 'none' });
    await call('GET', '/api/v1/prompt-templates?limit=10');
    await call('GET', '/api/v1/traces?limit=0');
    await call('POST', '/api/v1/datasets', { body: { name: '' } });
    await call('GET', '/api/public/v2/datasets/nowhere', { auth: 'basic' });

    const validator = await validatorFor(stack.baseUrl);
    const problems = answers.map(({ method, path, answer }) => validator.check(method, path, answer.status, answer.body)).filter(Boolean);
    expect(problems).toEqual([]);
    // The bodies the API accepted match the request schemas its DTOs give.
    const accepted = answers.filter(({ body, answer }) => body !== undefined && answer.status < 300);
    expect(accepted.length).toBeGreaterThan(15);
    expect(accepted.map(({ method, path, body }) => validator.checkRequest(method, path, body)).filter(Boolean)).toEqual([]);

    // Each route was called but the two that answer other than JSON, checked below.
    const called = new Set(answers.map(({ method, path }) => `${method} ${validator.operation(method, path)?.template}`));
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.filter((o) => !called.has(o))).toEqual(['GET /metrics', 'GET /docs']);
  });

  it('checks a body off its schema as a mismatch', async () => {
    const validator = await validatorFor(stack.baseUrl);
    expect(validator.check('GET', '/api/v1/traces', 200, { data: [{ id: 'x' }], meta: { nextCursor: null } })).toMatch(
      /^GET \/api\/v1\/traces 200: .*must have required property/,
    );
    expect(validator.check('GET', '/api/v1/traces', 418, null)).toMatch(/status 418 is not declared/);
    expect(validator.check('POST', '/api/v1/auth/login', 401, { error: { code: 'UNAUTHORIZED', message: 'no' } })).toMatch(
      /must have required property 'data'/,
    );
  });

  it('serves the reference page from the app, with nothing from another host', async () => {
    const res = await fetch(`${stack.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    const html = await res.text();
    expect(html).toContain('POST</span> <code>/api/v1/traces</code>');
    expect(html).toContain('/api/public/v2/prompts/{name}');
    expect(html).not.toMatch(/<script|<link|src=/);
    const metrics = await fetch(`${stack.baseUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(document.paths['/metrics'].get.responses['200'].content).toHaveProperty(['text/plain']);
  });
});
