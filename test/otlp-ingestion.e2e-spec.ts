import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import type { ExportTraceServiceRequest, Span } from '@app/otlp';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { bootstrap, send } from './support/api';
import { FIXTURES } from './support/factories';
import { NATIVE_TRACES, OTLP_TRACES, postWithKey, write } from './support/ingest';
import { type Stack, startStack } from './support/stack';

interface ExpectedSpan {
  otelSpanId: string;
  name: string;
  type: string;
  model: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  cost: number | null;
  input: unknown;
  output: unknown;
}

interface ExpectedTrace {
  otelTraceId: string;
  name: string | null;
  tags: string[];
  spans: ExpectedSpan[];
}

const OTLP_FIXTURES = resolve(FIXTURES, 'otlp');
const CONVENTIONS_ADDED = resolve(__dirname, '..', 'libs', 'otlp', 'src', 'testing', 'shared-fixtures');
const fixtureNames = readdirSync(OTLP_FIXTURES)
  .filter((name) => name.endsWith('.json') && !name.endsWith('.expected.json'))
  .sort();

const traceHex = () => randomBytes(16).toString('hex');
const spanHex = () => randomBytes(8).toString('hex');

/**
 * A span's fields in the `.expected.json` form. Its `cost` is the client's (SPEC 2.2's
 * `gen_ai.usage.cost`): a cost computed from the price table (issue 28) is covered by
 * span-costs.e2e-spec.ts.
 */
const expectedFormOf = (s: any): ExpectedSpan => ({
  otelSpanId: s.otelSpanId,
  name: s.name,
  type: s.type,
  model: s.model,
  promptTokens: s.promptTokens,
  completionTokens: s.completionTokens,
  cost: s.costSource === 'client' ? s.cost : null,
  input: s.input,
  output: s.output,
});
const byOtelSpanId = (a: { otelSpanId: string }, b: { otelSpanId: string }) => a.otelSpanId.localeCompare(b.otelSpanId);

describe('OTLP/JSON ingestion (POST /api/v1/otel/traces → JetStream → processor → GET)', () => {
  let stack: Stack;
  let key: string;

  interface PostOptions {
    path?: string;
    apiKey?: string | null;
    headers?: Record<string, string>;
  }

  /** This spec's key and OTLP path unless a case says otherwise. */
  const post = (body: unknown, { path = OTLP_TRACES, apiKey = key, headers = {} }: PostOptions = {}) =>
    postWithKey(stack, apiKey, path, body, headers);

  /** Posts, expects 200 with the span count, and returns the read-your-writes token. */
  const ingest = async (body: unknown, spanCount: number, { path = OTLP_TRACES, headers }: PostOptions = {}): Promise<string> => {
    const res = await write(stack, key, path, body, headers);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { accepted: spanCount } });
    expect(res.seq).toMatch(/^v1\.[A-Za-z0-9_-]{22}$/);
    return res.seq as string;
  };

  const readTrace = async (otelTraceId: string, seq: string) => {
    const res = await send(stack, 'GET', `/api/v1/traces/${otelTraceId}?minSeq=${seq}`, { token: key });
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    stack = await startStack();
    key = (await bootstrap(stack, 'otlp@spanlog.test', 'OTLP', 'main')).apiKey;
  }, 120_000);

  afterAll(() => stack?.stop());

  it('finds the shared fixtures', () => {
    expect(fixtureNames.length).toBeGreaterThanOrEqual(7);
  });

  it.each(fixtureNames)('stores %s as its .expected.json and the conventions say', async (name) => {
    // The file's own bytes: the stored data is the client's JSON.
    const raw = readFileSync(resolve(OTLP_FIXTURES, name));
    const spec = JSON.parse(readFileSync(resolve(OTLP_FIXTURES, name.replace(/\.json$/, '.expected.json')), 'utf8')) as {
      traces: ExpectedTrace[];
    };
    // The shared files state SPEC §2 alone; what the instrumentation conventions add is kept beside the unit test of the same fixtures.
    const added = JSON.parse(readFileSync(resolve(CONVENTIONS_ADDED, name.replace(/\.json$/, '.conventions.json')), 'utf8')) as {
      traces: Record<string, object>;
      spans: Record<string, object>;
    };
    const expected = {
      traces: spec.traces.map((t) => ({
        ...t,
        ...added.traces[t.otelTraceId],
        spans: t.spans.map((sp) => ({ ...sp, ...added.spans[sp.otelSpanId] })),
      })),
    };
    const spanCount = expected.traces.reduce((n, t) => n + t.spans.length, 0);
    const seq = await ingest(raw, spanCount);
    for (const want of expected.traces) {
      const trace = await readTrace(want.otelTraceId, seq);
      expect({ otelTraceId: trace.otelTraceId, name: trace.name, tags: trace.tags }).toEqual({
        otelTraceId: want.otelTraceId,
        name: want.name,
        tags: want.tags,
      });
      expect(trace.spans.map(expectedFormOf).sort(byOtelSpanId)).toEqual([...want.spans].sort(byOtelSpanId));
    }
  });

  it('takes the Collector path /api/v1/otel/v1/traces the same way', async () => {
    const traceId = traceHex();
    const seq = await ingest(exportOf([span({ traceId, spanId: spanHex(), parentSpanId: '', name: 'via collector' })]), 1, {
      path: '/api/v1/otel/v1/traces',
    });
    expect(await readTrace(traceId, seq)).toMatchObject({ otelTraceId: traceId, name: 'via collector', tags: ['service:svc'] });
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
  ])('inflates a %s body', async (encoding, compress) => {
    const traceId = traceHex();
    const body = exportOf([
      span({
        traceId,
        spanId: spanHex(),
        parentSpanId: '',
        name: `${encoding} root`,
        attributes: attrs({ 'gen_ai.request.model': 'gpt-4o-mini' }),
      }),
    ]);
    const seq = await ingest(compress(JSON.stringify(body)), 1, { headers: { 'content-encoding': encoding } });
    const trace = await readTrace(traceId, seq);
    expect(trace).toMatchObject({ name: `${encoding} root`, spans: [{ type: 'LLM', model: 'gpt-4o-mini' }] });
  });

  it("answers a span's attributes whole, with the ones its input and output were read from (stored once)", async () => {
    const traceId = traceHex();
    const sent = {
      'gen_ai.prompt': 'Where is my order?',
      'gen_ai.completion': 'It shipped.',
      'gen_ai.request.model': 'gpt-4o-mini',
      'input.value': 'Where is my order?',
    };
    const seq = await ingest(exportOf([span({ traceId, spanId: spanHex(), parentSpanId: '', name: 'chat', attributes: attrs(sent) })]), 1);
    const trace = await readTrace(traceId, seq);
    expect(trace.spans).toEqual([expect.objectContaining({ input: 'Where is my order?', output: 'It shipped.', attributes: sent })]);
  });

  it('joins spans of one trace sent child first in two requests into one trace named after the root', async () => {
    const traceId = traceHex();
    const rootId = spanHex();
    const childId = spanHex();
    const root = span({
      traceId,
      spanId: rootId,
      parentSpanId: '',
      name: 'agent run',
      attributes: attrs({ 'platform.span.type': 'AGENT' }),
    });
    const child = span({ traceId, spanId: childId, parentSpanId: rootId, name: 'search', attributes: attrs({ 'tool.name': 'search' }) });
    await ingest(exportOf([child]), 1);
    const seq = await ingest(exportOf([root]), 1);
    const trace = await readTrace(traceId, seq);
    expect(trace).toMatchObject({ name: 'agent run', spanCount: 2 });
    const byId = Object.fromEntries(trace.spans.map((s: any) => [s.otelSpanId, s]));
    expect(byId[rootId]).toMatchObject({ type: 'AGENT', parentId: null });
    expect(byId[childId]).toMatchObject({ type: 'TOOL', parentId: byId[rootId].id });
  });

  describe('operation, tool input and output, trace input and output from the root (issue 26)', () => {
    /** An agent run: an `invoke_agent` root, its `chat` call and an `execute_tool` call with its arguments and result. */
    const agentRun = (traceId: string, ids: { root: string; chat: string; tool: string }) =>
      exportOf([
        span({
          traceId,
          spanId: ids.root,
          parentSpanId: '',
          name: 'invoke_agent weather',
          attributes: attrs({
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': 'weather',
            'gen_ai.prompt': 'Weather in Paris?',
            'gen_ai.completion': 'Sunny, 18 °C.',
          }),
        }),
        span({
          traceId,
          spanId: ids.chat,
          parentSpanId: ids.root,
          name: 'chat gpt-4o-mini',
          attributes: attrs({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' }),
        }),
        span({
          traceId,
          spanId: ids.tool,
          parentSpanId: ids.root,
          name: 'execute_tool get_weather',
          attributes: attrs({
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'get_weather',
            'gen_ai.tool.call.arguments': '{"city":"Paris"}',
            'gen_ai.tool.call.result': '{"temp":18}',
          }),
        }),
      ]);
    const newIds = () => ({ root: spanHex(), chat: spanHex(), tool: spanHex() });

    it("reads back the operation per span, the tool span's arguments and result as its input and output, and the root's as the trace's", async () => {
      const traceId = traceHex();
      const ids = newIds();
      const seq = await ingest(agentRun(traceId, ids), 3);
      const trace = await readTrace(traceId, seq);
      expect({ input: trace.input, output: trace.output }).toEqual({ input: 'Weather in Paris?', output: 'Sunny, 18 °C.' });
      const byId = Object.fromEntries(trace.spans.map((s: any) => [s.otelSpanId, s]));
      expect(byId[ids.root]).toMatchObject({ type: 'LLM', operation: 'invoke_agent' });
      expect(byId[ids.chat]).toMatchObject({ type: 'LLM', operation: 'chat', model: 'gpt-4o-mini' });
      expect(byId[ids.tool]).toMatchObject({ type: 'LLM', operation: 'execute_tool', input: { city: 'Paris' }, output: { temp: 18 } });
    });

    it.each([
      ['the trace-create first', true],
      ['the root span first', false],
    ])("a native trace-create's input wins over the root span's, %s", async (_, nativeFirst) => {
      const traceId = traceHex();
      const native = {
        batch: [
          {
            id: `e-${traceId}`,
            type: 'trace-create',
            timestamp: '2020-01-01T00:00:00.000Z',
            body: { id: traceId, name: 'stated', input: 'stated input' },
          },
        ],
      };
      const sendNative = async () => {
        const res = await write(stack, key, NATIVE_TRACES, native);
        expect(res.status).toBeLessThan(300);
        return res.seq as string;
      };
      let seq: string;
      if (nativeFirst) {
        await sendNative();
        seq = await ingest(agentRun(traceId, newIds()), 3);
      } else {
        await ingest(agentRun(traceId, newIds()), 3);
        seq = await sendNative();
      }
      const trace = await readTrace(traceId, seq);
      expect({ input: trace.input, output: trace.output }).toEqual({ input: 'stated input', output: 'Sunny, 18 °C.' });
    });

    it("explain shows the operation and the tool's input and output mapping", async () => {
      const res = await post(agentRun(traceHex(), newIds()), { path: '/api/v1/otel/traces?explain=true' });
      expect(res.status).toBe(200);
      const [root, chat, tool] = ((await res.json()) as any).spans;
      expect(root.span.operation).toEqual({ value: 'invoke_agent', from: ['gen_ai.operation.name'], rule: 'OTel GenAI' });
      expect(chat.span.operation).toEqual({ value: 'chat', from: ['gen_ai.operation.name'], rule: 'OTel GenAI' });
      expect(tool.span).toMatchObject({
        operation: { value: 'execute_tool', from: ['gen_ai.operation.name'], rule: 'OTel GenAI' },
        input: { value: { city: 'Paris' }, from: ['gen_ai.tool.call.arguments'], rule: 'OTel GenAI' },
        output: { value: { temp: 18 }, from: ['gen_ai.tool.call.result'], rule: 'OTel GenAI' },
      });
    });
  });

  it('stores an export larger than one stream message, split by spans, and reads every span back', async () => {
    const traceId = traceHex();
    const text = 'λ'.repeat(100_000);
    const spans: Span[] = Array.from({ length: 15 }, (_, i) =>
      span({ traceId, spanId: spanHex(), parentSpanId: '', name: `big ${i}`, attributes: attrs({ 'gen_ai.prompt': `${i}:${text}` }) }),
    );
    const body = exportOf(spans);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(2 * 1024 * 1024);
    const seq = await ingest(body, spans.length);
    const trace = await readTrace(traceId, seq);
    expect(trace.spanCount).toBe(spans.length);
    expect(trace.spans.map((s: any) => s.input).sort()).toEqual(spans.map((_, i) => `${i}:${text}`).sort());
  });

  it('answers {} and an export without spans 200 {accepted: 0} with a Spanlog-Seq', async () => {
    await ingest({}, 0);
    await ingest({ resourceSpans: [{ resource: { attributes: attrs({ 'service.name': 'idle' }) }, scopeSpans: [] }] }, 0);
  });

  describe('bad input gets its documented status, never a 5xx', () => {
    const valid = () => exportOf([span({ traceId: traceHex(), spanId: spanHex() })]);
    const withSpan = (overrides: Partial<Span>): ExportTraceServiceRequest =>
      exportOf([span({ traceId: traceHex(), spanId: spanHex(), ...overrides })]);
    const sixMb = () => JSON.stringify(withSpan({ attributes: attrs({ 'gen_ai.prompt': 'x'.repeat(6 * 1024 * 1024) }) }));
    const gzip = { 'content-encoding': 'gzip' };

    interface Case {
      name: string;
      request: () => { body: unknown; options?: PostOptions };
      status: number;
      code: string;
      message?: string | RegExp;
    }
    const cases: Case[] = [
      {
        name: 'malformed JSON',
        request: () => ({ body: '{"resourceSpans": [' }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: /not valid JSON/,
      },
      {
        name: 'a body that is not an object',
        request: () => ({ body: '[1,2]' }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: 'request body: must be an object',
      },
      {
        name: 'resourceSpans of the wrong type',
        request: () => ({ body: { resourceSpans: {} } }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: 'resourceSpans: must be an array',
      },
      {
        name: 'an enum name where an integer is due',
        request: () => ({ body: withSpan({ kind: 'SPAN_KIND_SERVER' as never }) }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: 'resourceSpans[0].scopeSpans[0].spans[0].kind',
      },
      {
        name: 'a trace id that is not 32 hex characters',
        request: () => ({ body: withSpan({ traceId: 'zz12' }) }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: 'resourceSpans[0].scopeSpans[0].spans[0].traceId: must be 32 hex characters',
      },
      {
        name: 'a span id that is not 16 hex characters',
        request: () => ({ body: withSpan({ spanId: 'eee19b7ec3c1b17' }) }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: 'resourceSpans[0].scopeSpans[0].spans[0].spanId: must be 16 hex characters',
      },
      {
        name: 'an all-zero trace id',
        request: () => ({ body: withSpan({ traceId: '0'.repeat(32) }) }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: 'resourceSpans[0].scopeSpans[0].spans[0].traceId: must not be all zeros',
      },
      {
        name: '10,000 levels of nesting',
        request: () => ({ body: `{"resourceSpans":${'['.repeat(10_000)}${']'.repeat(10_000)}}` }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: /nests deeper than/,
      },
      {
        name: 'a __proto__ key',
        request: () => ({ body: '{"resourceSpans":[],"__proto__":{"polluted":true}}' }),
        status: 400,
        code: 'VALIDATION_ERROR',
      },
      {
        name: 'a __proto__ key behind gzip',
        request: () => ({ body: gzipSync('{"__proto__":{"polluted":true}}'), options: { headers: gzip } }),
        status: 400,
        code: 'VALIDATION_ERROR',
      },
      { name: 'an empty body', request: () => ({ body: '' }), status: 400, code: 'VALIDATION_ERROR' },
      { name: '6 MB of JSON', request: () => ({ body: sixMb() }), status: 413, code: 'PAYLOAD_TOO_LARGE' },
      {
        name: '6 MB of JSON gzipped',
        request: () => ({ body: gzipSync(sixMb()), options: { headers: gzip } }),
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
      },
      {
        name: 'a gzip bomb (200 MB of zeros)',
        request: () => ({ body: gzipSync(Buffer.alloc(200 * 1024 * 1024)), options: { headers: gzip } }),
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
      },
      {
        name: 'truncated gzip',
        request: () => ({ body: gzipSync(JSON.stringify(valid())).subarray(0, 40), options: { headers: gzip } }),
        status: 400,
        code: 'VALIDATION_ERROR',
        message: /not valid gzip data/,
      },
      {
        name: 'an unsupported Content-Encoding',
        request: () => ({ body: JSON.stringify(valid()), options: { headers: { 'content-encoding': 'br' } } }),
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: /Content-Encoding br/,
      },
      {
        name: 'a protobuf body',
        request: () => ({
          body: Buffer.from([0x0a, 0x02, 0x08, 0x01]),
          options: { headers: { 'content-type': 'application/x-protobuf' } },
        }),
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: /JSON is required, protobuf is not supported/,
      },
      {
        name: 'a text body',
        request: () => ({ body: 'hello', options: { headers: { 'content-type': 'text/plain' } } }),
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: /application\/json/,
      },
      { name: 'no API key', request: () => ({ body: valid(), options: { apiKey: null } }), status: 401, code: 'UNAUTHORIZED' },
      { name: 'a wrong API key', request: () => ({ body: valid(), options: { apiKey: 'sl_wrong' } }), status: 401, code: 'UNAUTHORIZED' },
      {
        name: 'no API key on the Collector path',
        request: () => ({ body: valid(), options: { path: '/api/v1/otel/v1/traces', apiKey: null } }),
        status: 401,
        code: 'UNAUTHORIZED',
      },
    ];

    it.each(cases)('$name → $status $code', async ({ request, status, code, message }) => {
      const { body, options } = request();
      const res = await post(body, options);
      const answer = (await res.json()) as { error: { code: string; message: string } };
      expect({ status: res.status, code: answer.error?.code }).toEqual({ status, code });
      if (message !== undefined) expect(answer.error.message).toMatch(message);
    });

    it('leaves the API and the processor working afterwards', async () => {
      const traceId = traceHex();
      const seq = await ingest(exportOf([span({ traceId, spanId: spanHex(), parentSpanId: '', name: 'after the bad inputs' })]), 1);
      expect(await readTrace(traceId, seq)).toMatchObject({ name: 'after the bad inputs' });
    });
  });
});
