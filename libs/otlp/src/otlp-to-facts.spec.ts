import {
  type SpanFields,
  type TraceFields,
  foldFacts,
  nativeEventsToFacts,
  otelSpanUuid,
  otelTraceUuid,
  validateNativeBatch,
  versionOf,
} from '@app/domain';
import type { KeyValue, Span } from './otlp-types';
import { ROOT_CONTENT_VERSION_TIME, otlpToFacts } from './otlp-to-facts';
import {
  ENVELOPE,
  PARENT_HEX,
  SPAN_HEX,
  TRACE_HEX,
  arr,
  attrs,
  bool,
  bytes,
  dbl,
  exportOf,
  int,
  kv,
  kvlist,
  span,
  str,
} from './testing/otlp-builders';
import type { ExportOptions } from './testing/otlp-builders';

/** The values of the one span a one-span export yields. */
function spanValues(s: Partial<Span>, options?: ExportOptions): Partial<SpanFields> {
  const { spans } = otlpToFacts(exportOf([span(s)], options), ENVELOPE);
  expect(spans).toHaveLength(1);
  return spans[0].values;
}

function traceValues(s: Partial<Span>, options?: ExportOptions): Partial<TraceFields> {
  const { traces } = otlpToFacts(exportOf([span(s)], options), ENVELOPE);
  expect(traces).toHaveLength(1);
  return traces[0].values;
}

const withAttributes = (entries: Parameters<typeof attrs>[0]) => spanValues({ attributes: attrs(entries) });

describe(otlpToFacts.name, () => {
  describe('span type (SPEC 2.3, first matching row wins)', () => {
    it.each<[string, Parameters<typeof attrs>[0], string]>([
      ['platform.span.type is the explicit value', { 'platform.span.type': 'AGENT' }, 'AGENT'],
      ['an explicit type is upper-cased and trimmed', { 'platform.span.type': ' agent ' }, 'AGENT'],
      ['an explicit type wins over gen_ai.*', { 'platform.span.type': 'TOOL', 'gen_ai.request.model': 'm' }, 'TOOL'],
      ['an explicit type that is not one word does not match the row', { 'platform.span.type': 'not a type', 'tool.name': 't' }, 'TOOL'],
      ['an explicit non-string type does not match the row', { 'platform.span.type': 3 }, 'CUSTOM'],
      ['any gen_ai.* key is LLM', { 'gen_ai.system': 'openai' }, 'LLM'],
      ['any llm.* key is LLM', { 'llm.system': 'openai' }, 'LLM'],
      ['gen_ai.* wins over tool.name', { 'tool.name': 't', 'gen_ai.tool.name': 't' }, 'LLM'],
      ['llm.* wins over db.system', { 'db.system': 'postgresql', 'llm.model_name': 'm' }, 'LLM'],
      ['tool.name is TOOL', { 'tool.name': 'get_weather' }, 'TOOL'],
      ['rpc.method is TOOL', { 'rpc.method': 'Get' }, 'TOOL'],
      ['tool.name wins over db.statement', { 'db.statement': 'SELECT 1', 'tool.name': 't' }, 'TOOL'],
      ['db.system is RETRIEVAL', { 'db.system': 'postgresql' }, 'RETRIEVAL'],
      ['db.statement is RETRIEVAL', { 'db.statement': 'SELECT 1' }, 'RETRIEVAL'],
      ['nothing else is CUSTOM', { 'http.method': 'GET', gen_ai: 'x', llm: 'y' }, 'CUSTOM'],
      ['a key merely containing gen_ai. is CUSTOM', { 'x.gen_ai.y': 'z' }, 'CUSTOM'],
    ])('%s', (_, entries, type) => expect(withAttributes(entries).type).toBe(type));

    it('tests span attributes only: a gen_ai.* resource attribute does not make spans LLM', () => {
      expect(spanValues({}, { resource: attrs({ 'gen_ai.system': 'openai', 'tool.name': 't' }) }).type).toBe('CUSTOM');
    });

    it('counts a key with an empty value as present', () => {
      expect(spanValues({ attributes: [{ key: 'tool.name', value: {} }] }).type).toBe('TOOL');
    });
  });

  describe('span fields from gen_ai.* (SPEC 2.2)', () => {
    it.each<[string, Parameters<typeof attrs>[0], Partial<SpanFields>]>([
      ['model from gen_ai.request.model', { 'gen_ai.request.model': 'gpt-4o-mini' }, { model: 'gpt-4o-mini' }],
      [
        'model from gen_ai.response.model without a request model',
        { 'gen_ai.response.model': 'gpt-4o-mini-2024-07-18' },
        { model: 'gpt-4o-mini-2024-07-18' },
      ],
      ['the request model wins over the response model', { 'gen_ai.response.model': 'b', 'gen_ai.request.model': 'a' }, { model: 'a' }],
      ['promptTokens from gen_ai.usage.input_tokens', { 'gen_ai.usage.input_tokens': 62 }, { promptTokens: 62 }],
      ['completionTokens from gen_ai.usage.output_tokens', { 'gen_ai.usage.output_tokens': 85 }, { completionTokens: 85 }],
      [
        'totalTokens is the sum when both are set',
        { 'gen_ai.usage.input_tokens': 62, 'gen_ai.usage.output_tokens': 85 },
        { promptTokens: 62, completionTokens: 85, totalTokens: 147 },
      ],
      ['tokens as a decimal-string intValue', { 'gen_ai.usage.input_tokens': int('28') }, { promptTokens: 28 }],
      ['tokens as digits in a stringValue', { 'gen_ai.usage.output_tokens': '3' }, { completionTokens: 3 }],
      ['cost from gen_ai.usage.cost (double)', { 'gen_ai.usage.cost': 0.0000165 }, { cost: 0.0000165 }],
      ['cost from an intValue', { 'gen_ai.usage.cost': int(2) }, { cost: 2 }],
      [
        'the largest cost and token counts TELEMETRY_RANGES allow',
        { 'gen_ai.usage.cost': 1_000_000, 'gen_ai.usage.input_tokens': 1_000_000_000, 'gen_ai.usage.output_tokens': 0 },
        { cost: 1_000_000, promptTokens: 1_000_000_000, completionTokens: 0 },
      ],
      ['input from gen_ai.prompt', { 'gen_ai.prompt': 'Hello?' }, { input: 'Hello?' }],
      ['output from gen_ai.completion', { 'gen_ai.completion': 'Hi!' }, { output: 'Hi!' }],
      ['input keeps a structured value', { 'gen_ai.prompt': kvlist(kv('role', str('user'))) }, { input: { role: 'user' } }],
      [
        'modelParameters from gen_ai.request.* besides the model',
        { 'gen_ai.request.model': 'm', 'gen_ai.request.temperature': 0.5, 'gen_ai.request.max_tokens': 100 },
        { modelParameters: { temperature: 0.5, max_tokens: 100 } },
      ],
    ])('%s', (_, entries, expected) => expect(withAttributes(entries)).toMatchObject(expected));

    it.each<[string, Parameters<typeof attrs>[0], (keyof SpanFields)[]]>([
      [
        'no gen_ai.* attributes set nothing',
        { 'http.method': 'GET' },
        ['model', 'modelParameters', 'promptTokens', 'completionTokens', 'totalTokens', 'cost', 'input', 'output'],
      ],
      ['totalTokens needs both counts', { 'gen_ai.usage.input_tokens': 5 }, ['totalTokens', 'completionTokens']],
      ['negative tokens are not counts', { 'gen_ai.usage.input_tokens': -1 }, ['promptTokens']],
      ['fractional tokens are not counts', { 'gen_ai.usage.input_tokens': 1.5 }, ['promptTokens']],
      ['tokens beyond 2^53 are not exact counts', { 'gen_ai.usage.input_tokens': int('9007199254740993') }, ['promptTokens']],
      [
        'tokens beyond TELEMETRY_RANGES are not counts',
        { 'gen_ai.usage.input_tokens': 1_000_000_001, 'gen_ai.usage.output_tokens': '1000000001' },
        ['promptTokens', 'completionTokens', 'totalTokens'],
      ],
      ['a cost beyond TELEMETRY_RANGES is no cost', { 'gen_ai.usage.cost': 1e308 }, ['cost']],
      ['a cost just beyond TELEMETRY_RANGES is no cost', { 'gen_ai.usage.cost': dbl('1000000.5') }, ['cost']],
      ['an infinite cost is no cost', { 'gen_ai.usage.cost': dbl('Infinity') }, ['cost']],
      ['a negative cost is no cost', { 'gen_ai.usage.cost': -0.5 }, ['cost']],
      ['a NaN cost is no cost', { 'gen_ai.usage.cost': dbl('NaN') }, ['cost']],
      ['a non-string model is no model', { 'gen_ai.request.model': 4 }, ['model']],
      ['a model over 256 characters is not a label', { 'gen_ai.request.model': 'm'.repeat(257) }, ['model']],
      ['an empty prompt value is no input', { 'gen_ai.prompt': {} }, ['input']],
    ])('%s', (_, entries, absent) => {
      const values = withAttributes(entries);
      for (const field of absent) expect(values).not.toHaveProperty(field);
    });

    it('keeps a cost or count it does not map in the attributes, as sent', () => {
      const values = withAttributes({ 'gen_ai.usage.cost': 1e308, 'gen_ai.usage.input_tokens': 1_000_000_001 });
      expect(values).not.toHaveProperty('cost');
      expect(values.attributes).toEqual({ 'gen_ai.usage.cost': 1e308, 'gen_ai.usage.input_tokens': 1_000_000_001 });
    });
  });

  describe('attributes (CONTRACT "OTLP")', () => {
    it.each<[string, KeyValue['value'], unknown]>([
      ['stringValue', str('a'), 'a'],
      ['intValue as a JSON number (OTel JS)', int(42), 42],
      ['intValue as a decimal string (proto3 JSON)', int('42'), 42],
      ['negative intValue as a decimal string', int('-7'), -7],
      ['intValue 2^53 − 1 as a number', int('9007199254740991'), 9007199254740991],
      ['intValue beyond 2^53 stays a decimal string', int('9007199254740993'), '9007199254740993'],
      ['int64 minimum stays a decimal string', int('-9223372036854775808'), '-9223372036854775808'],
      ['doubleValue', dbl(0.25), 0.25],
      ['doubleValue as a numeric string', dbl('1.5'), 1.5],
      ['doubleValue NaN stays text', dbl('NaN'), 'NaN'],
      ['boolValue', bool(false), false],
      ['arrayValue', arr(str('a'), int(1)), ['a', 1]],
      ['empty arrayValue', { arrayValue: {} }, []],
      ['kvlistValue', kvlist(kv('a', int('1')), kv('b', arr(bool(true)))), { a: 1, b: [true] }],
      ['bytesValue stays base64', bytes('AQID'), 'AQID'],
      ['an empty value is null', {}, null],
      ['an absent value is null', undefined, null],
    ])('%s', (_, value, decoded) => {
      expect(spanValues({ attributes: [{ key: 'k', value } as KeyValue] }).attributes).toEqual({ k: decoded });
    });

    it('keeps every attribute, the last of a repeated key winning', () => {
      expect(spanValues({ attributes: [kv('a', str('1')), kv('b', str('2')), kv('a', str('3'))] }).attributes).toEqual({ a: '3', b: '2' });
    });

    it('keeps a __proto__ key as data, not as the prototype', () => {
      const { attributes } = spanValues({ attributes: [kv('__proto__', kvlist(kv('polluted', bool(true))))] });
      expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
      expect(Object.hasOwn(attributes as object, '__proto__')).toBe(true);
      expect(JSON.parse(JSON.stringify(attributes))).toEqual(JSON.parse('{"__proto__":{"polluted":true}}'));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('makes every key and string safe for Postgres', () => {
      const values = spanValues({
        name: 'n\u0000ame',
        attributes: [kv('k\ud800', str('v\u0000'))],
        status: { code: 2, message: 'bad\udc00' },
      });
      expect(values).toMatchObject({ name: 'name', attributes: { 'k\ufffd': 'v' }, statusMessage: 'bad\ufffd' });
    });
  });

  describe('ids, parents and times', () => {
    it('maps ids per CONTRACT "Id mapping" and keeps hex lower-case', () => {
      const { spans, traces } = otlpToFacts(
        exportOf([span({ traceId: TRACE_HEX.toUpperCase(), spanId: SPAN_HEX.toUpperCase(), parentSpanId: PARENT_HEX.toUpperCase() })]),
        ENVELOPE,
      );
      expect(spans[0]).toMatchObject({
        id: otelSpanUuid(TRACE_HEX, SPAN_HEX),
        otelSpanId: SPAN_HEX,
        externalId: null,
        createdAt: ENVELOPE.receivedAt,
        projectId: ENVELOPE.projectId,
      });
      expect(spans[0].values).toMatchObject({ traceId: otelTraceUuid(TRACE_HEX), parentId: otelSpanUuid(TRACE_HEX, PARENT_HEX) });
      expect(traces[0]).toMatchObject({
        id: '5b8efff7-9803-8103-d269-b633813fc60c',
        otelTraceId: TRACE_HEX,
        externalId: null,
        projectId: ENVELOPE.projectId,
      });
    });

    it.each<[string, Partial<Span>]>([
      ['absent', { parentSpanId: undefined }],
      ['null', { parentSpanId: null as unknown as string }],
      ['empty', { parentSpanId: '' }],
      ['all zeros', { parentSpanId: '0000000000000000' }],
    ])('a %s parentSpanId is a root: no parentId, and the span names the trace', (_, s) => {
      expect(spanValues({ ...s, name: 'root' })).not.toHaveProperty('parentId');
      expect(traceValues({ ...s, name: 'root' })).toMatchObject({ name: 'root' });
    });

    it('a child does not name its trace', () => {
      expect(traceValues({ name: 'child' })).not.toHaveProperty('name');
    });

    it.each<[string, Span['startTimeUnixNano'], string | undefined]>([
      ['a decimal string, exactly to the microsecond', '1736935200123456789', '2025-01-15T10:00:00.123456Z'],
      ['a JSON number', 1736935200123456000, '2025-01-15T10:00:00.123456Z'],
      ['whole milliseconds, still six digits', '1736935200123000000', '2025-01-15T10:00:00.123000Z'],
      ['the epoch plus one nanosecond', '1', '1970-01-01T00:00:00.000000Z'],
      ['the last nanosecond of 2099', '4102444799999999999', '2099-12-31T23:59:59.999999Z'],
      ['zero (proto3 "not set")', '0', undefined],
      ['absent', undefined, undefined],
    ])('startTime from %s', (_, startTimeUnixNano, iso) => {
      const { spans, traces } = otlpToFacts(exportOf([span({ startTimeUnixNano })]), ENVELOPE);
      expect(spans[0].values.startTime).toBe(iso);
      expect(traces[0].minSpanStart).toBe(iso ?? null);
      expect(traces[0].firstEventTime).toBe(iso ?? ENVELOPE.receivedAt);
    });

    it('endTime from endTimeUnixNano', () => {
      expect(spanValues({ endTimeUnixNano: '1736935201000000001' }).endTime).toBe('2025-01-15T10:00:01.000000Z');
    });
  });

  describe('status → level (CONTRACT "OTLP")', () => {
    it.each<[string, Span['status'], Partial<SpanFields>]>([
      ['absent is DEFAULT', undefined, { level: 'DEFAULT' }],
      ['UNSET is DEFAULT', { code: 0 }, { level: 'DEFAULT' }],
      ['OK is DEFAULT', { code: 1, message: 'fine' }, { level: 'DEFAULT' }],
      ['ERROR is ERROR with its message', { code: 2, message: 'boom' }, { level: 'ERROR', statusMessage: 'boom' }],
      ['ERROR without a message', { code: 2 }, { level: 'ERROR' }],
    ])('%s', (_, status, expected) => {
      const values = spanValues({ status });
      expect(values).toMatchObject(expected);
      if (!('statusMessage' in expected)) expect(values).not.toHaveProperty('statusMessage');
    });
  });

  describe('span metadata', () => {
    it('holds scope, kind, exact nanoseconds, status, traceState, events and links', () => {
      const metadata = spanValues(
        {
          kind: 3,
          startTimeUnixNano: '1736935200123456789',
          endTimeUnixNano: 1736935201000000000,
          traceState: 'vendor=1',
          status: { code: 2, message: 'boom' },
          events: [{ name: 'exception', timeUnixNano: '1736935200500000000', attributes: attrs({ 'exception.type': 'ValueError' }) }],
          links: [{ traceId: TRACE_HEX.toUpperCase(), spanId: PARENT_HEX, attributes: attrs({ why: 'retry' }) }],
        },
        { scope: { name: 'lib', version: '2.0', attributes: attrs({ 'scope.attr': 'x' }) } },
      ).metadata;
      expect(metadata).toEqual({
        scope: { name: 'lib', version: '2.0', attributes: { 'scope.attr': 'x' } },
        kind: 'CLIENT',
        startTimeUnixNano: '1736935200123456789',
        endTimeUnixNano: '1736935201000000000',
        status: { code: 'ERROR', message: 'boom' },
        traceState: 'vendor=1',
        events: [{ name: 'exception', time: '2025-01-15T10:00:00.500000Z', attributes: { 'exception.type': 'ValueError' } }],
        links: [{ traceId: TRACE_HEX, spanId: PARENT_HEX, attributes: { why: 'retry' } }],
      });
    });

    it.each<[string, Partial<Span>, ExportOptions, object]>([
      [
        'a minimal span: kind only, UNSPECIFIED when absent',
        { kind: undefined, startTimeUnixNano: undefined, endTimeUnixNano: undefined },
        { scope: {} },
        { kind: 'UNSPECIFIED' },
      ],
      [
        'an unnamed kind as decimal text',
        { kind: 9, startTimeUnixNano: undefined, endTimeUnixNano: undefined },
        { scope: {} },
        { kind: '9' },
      ],
      [
        'scope name only',
        { startTimeUnixNano: undefined, endTimeUnixNano: undefined },
        { scope: { name: 'ai' } },
        { scope: { name: 'ai' }, kind: 'INTERNAL' },
      ],
      [
        'status OK',
        { status: { code: 1 }, startTimeUnixNano: undefined, endTimeUnixNano: undefined },
        { scope: {} },
        { kind: 'INTERNAL', status: { code: 'OK' } },
      ],
    ])('%s', (_, s, options, metadata) => expect(spanValues(s, options).metadata).toEqual(metadata));
  });

  describe('trace fields', () => {
    it('resource attributes are the trace metadata, service.name its tag (SPEC 2.1)', () => {
      const resource = [
        kv('service.name', str('checkout')),
        kv('process.pid', int(42)),
        kv('process.command_args', arr(str('node'), str('main.js'))),
      ];
      expect(traceValues({}, { resource })).toEqual({
        metadata: { 'service.name': 'checkout', 'process.pid': 42, 'process.command_args': ['node', 'main.js'] },
        tags: ['service:checkout'],
      });
    });

    it('a resource without attributes sets neither metadata nor tags', () => {
      expect(traceValues({}, { resource: [] })).toEqual({});
    });

    it('a resource without service.name has metadata but no tag', () => {
      expect(traceValues({}, { resource: attrs({ 'host.name': 'h' }) })).toEqual({ metadata: { 'host.name': 'h' } });
    });

    it.each<[string, Parameters<typeof attrs>[0], Parameters<typeof attrs>[0], Partial<TraceFields>]>([
      ['user.id from the span', { 'user.id': 'u1' }, {}, { userId: 'u1' }],
      ['user.id from the resource', {}, { 'user.id': 'u2' }, { userId: 'u2' }],
      ['user.id: the span wins over the resource', { 'user.id': 'span' }, { 'user.id': 'resource' }, { userId: 'span' }],
      ['a numeric user.id as text', { 'user.id': 42 }, {}, { userId: '42' }],
      ['session.id', { 'session.id': 's1' }, {}, { sessionId: 's1' }],
      ['gen_ai.conversation.id without session.id', { 'gen_ai.conversation.id': 'c1' }, {}, { sessionId: 'c1' }],
      ['session.id wins over gen_ai.conversation.id', { 'gen_ai.conversation.id': 'c1', 'session.id': 's1' }, {}, { sessionId: 's1' }],
      [
        'session.id on the resource wins over gen_ai.conversation.id on the span',
        { 'gen_ai.conversation.id': 'c1' },
        { 'session.id': 's1' },
        { sessionId: 's1' },
      ],
      ['deployment.environment.name', {}, { 'deployment.environment.name': 'prod' }, { environment: 'prod' }],
      ['deployment.environment without .name', {}, { 'deployment.environment': 'staging' }, { environment: 'staging' }],
      [
        'deployment.environment.name wins over deployment.environment',
        { 'deployment.environment': 'old' },
        { 'deployment.environment.name': 'new' },
        { environment: 'new' },
      ],
    ])('%s', (_, spanAttributes, resourceAttributes, expected) => {
      expect(traceValues({ attributes: attrs(spanAttributes) }, { resource: attrs(resourceAttributes) })).toMatchObject(expected);
    });

    it.each<[string, Parameters<typeof attrs>[0]]>([
      ['an empty user.id', { 'user.id': '' }],
      ['a user.id over 256 characters', { 'user.id': 'u'.repeat(257) }],
      ['a boolean user.id', { 'user.id': true }],
    ])('%s is not mapped', (_, spanAttributes) => {
      expect(traceValues({ attributes: attrs(spanAttributes) }, { resource: [] })).not.toHaveProperty('userId');
    });

    it('a service.name over 256 characters gives no tag', () => {
      expect(traceValues({}, { resource: attrs({ 'service.name': 's'.repeat(257) }) })).not.toHaveProperty('tags');
    });
  });

  describe('trace input and output from the root span', () => {
    const content = { 'gen_ai.prompt': 'question', 'gen_ai.completion': 'answer' };
    const rootOf = (entries: Parameters<typeof attrs>[0]) =>
      otlpToFacts(exportOf([span({ parentSpanId: '', attributes: attrs(entries) })]), ENVELOPE);

    it('fills the trace input and output from the root span, versioned below every stated value', () => {
      const [trace] = rootOf(content).traces;
      expect(trace.values).toMatchObject({ input: 'question', output: 'answer' });
      expect(trace.versions.input).toEqual(versionOf(ROOT_CONTENT_VERSION_TIME, `root:${ENVELOPE.receivedAt}:${SPAN_HEX}`));
      expect(trace.versions.output).toEqual(trace.versions.input);
      expect(trace.versions.name).toEqual(versionOf(ENVELOPE.receivedAt, SPAN_HEX));
    });

    it('a child span says nothing of the trace input or output', () => {
      expect(traceValues({ attributes: attrs(content) })).not.toHaveProperty('input');
    });

    it('a root without content sets neither', () => {
      expect(rootOf({}).traces[0].values).not.toHaveProperty('input');
    });

    it.each([
      ['the root first', true],
      ['the trace-create first', false],
    ])('a native trace-create input wins over the root span, %s', (_, rootFirst) => {
      const { events, errors } = validateNativeBatch({
        batch: [
          {
            id: 'e',
            type: 'trace-create',
            timestamp: '2020-01-01T00:00:00.000Z',
            body: { id: TRACE_HEX, name: 'stated', input: 'stated' },
          },
        ],
      });
      expect(errors).toEqual([]);
      const native = nativeEventsToFacts(events, ENVELOPE);
      const otlp = rootOf(content);
      const [trace] = foldFacts(rootFirst ? [otlp, native] : [native, otlp]).traces;
      expect(trace.values).toMatchObject({ input: 'stated', output: 'answer' });
    });

    it('among root exports the later one wins', () => {
      const later = otlpToFacts(exportOf([span({ parentSpanId: '', attributes: attrs({ 'gen_ai.prompt': 'again' }) })]), {
        ...ENVELOPE,
        receivedAt: '2025-01-15T10:06:00.000Z',
      });
      for (const order of [
        [rootOf(content), later],
        [later, rootOf(content)],
      ]) {
        expect(foldFacts(order).traces[0].values.input).toEqual('again');
      }
    });
  });

  describe('versions and shape', () => {
    it('stamps every field with the arrival time and the span id', () => {
      const { spans, traces } = otlpToFacts(exportOf([span({ parentSpanId: '' })]), ENVELOPE);
      expect(traces[0].values).not.toHaveProperty('input');
      const version = versionOf(ENVELOPE.receivedAt, SPAN_HEX);
      for (const delta of [...spans, ...traces]) {
        expect(Object.keys(delta.versions).sort()).toEqual(Object.keys(delta.values).sort());
        expect(new Set(Object.values(delta.versions))).toEqual(new Set([version]));
      }
    });

    it('yields one span delta and one trace delta per span, in body order, across resources and scopes', () => {
      const other = '0123456789abcdef0123456789abcdef';
      const body = {
        resourceSpans: [
          {
            scopeSpans: [
              { spans: [span({ spanId: '0000000000000001' })] },
              { spans: [span({ spanId: '0000000000000002', traceId: other })] },
            ],
          },
          { resource: { attributes: attrs({ 'service.name': 'b' }) }, scopeSpans: [{ spans: [span({ spanId: '0000000000000003' })] }] },
        ],
      };
      const { spans, traces, scores } = otlpToFacts(body, ENVELOPE);
      expect(spans.map((s) => s.otelSpanId)).toEqual(['0000000000000001', '0000000000000002', '0000000000000003']);
      expect(traces.map((t) => t.otelTraceId)).toEqual([TRACE_HEX, other, TRACE_HEX]);
      expect(scores).toEqual([]);
      expect(foldFacts([{ spans, traces, scores, runItems: [], deletions: [], scoreDeletions: [] }]).traces).toHaveLength(2);
    });

    it.each<[string, unknown]>([
      ['an empty export', {}],
      ['no resourceSpans array', { resourceSpans: 'x' }],
      ['snake_case keys', { resource_spans: [{ scope_spans: [{ spans: [span()] }] }] }],
    ])('%s yields no facts', (_, body) => {
      expect(otlpToFacts(body as never, ENVELOPE)).toEqual({
        traces: [],
        spans: [],
        scores: [],
        runItems: [],
        deletions: [],
        scoreDeletions: [],
      });
    });

    it('skips a span with an invalid id rather than throwing (validation is upstream)', () => {
      const { spans } = otlpToFacts(
        exportOf([span({ traceId: 'zz' }), span({ spanId: '0000000000000000' }), span({ parentSpanId: 'x' }), span()]),
        ENVELOPE,
      );
      expect(spans.map((s) => s.otelSpanId)).toEqual([SPAN_HEX]);
    });
  });
});
