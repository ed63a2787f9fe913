import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { SPANLOG_NAMESPACE, nativeId, otelSpanUuid, otelTraceUuid, uuidV5 } from '../ids';
import type { JsonObject } from '../json/types';
import { foldFacts } from '../telemetry/merge';
import { type TelemetryFacts, emptyFacts, versionOf } from '../telemetry/records';
import { NATIVE_EVENT_TYPES } from './native-events.dto';
import { nativeEventsToFacts } from './native-to-facts';
import { validateNativeBatch } from './validate-native-batch';

const fixture = (name: string): { batch: JsonObject[] } =>
  JSON.parse(readFileSync(resolve(__dirname, '../../../../../shared/fixtures/native', name), 'utf8'));

const target = { projectId: '00000000-0000-4000-8000-000000000001', receivedAt: '2025-01-15T10:05:00.000Z' };
const AT = '2025-01-15T10:00:00.000Z';
const LATER = '2025-01-15T10:00:01.000Z';
const event = (type: string, body: JsonObject, id = 'event-1', timestamp = AT) => ({ id, type, timestamp, body });

function factsOf(batch: unknown[]): TelemetryFacts {
  const { events, errors } = validateNativeBatch({ batch });
  expect(errors).toEqual([]);
  return nativeEventsToFacts(events, target);
}

/** Rows in id order with keys sorted: the same data whatever order the merges ran in. */
function canonical(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, x]) => [k, sortKeys(x)]),
      );
    return v;
  };
  const facts = value as TelemetryFacts;
  const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
  return JSON.stringify(sortKeys({ traces: byId(facts.traces), spans: byId(facts.spans), scores: byId(facts.scores) }));
}

function* permutations<T>(items: T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield items;
    return;
  }
  for (let i = 0; i < items.length; i++) {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) yield [items[i], ...rest];
  }
}

describe(nativeEventsToFacts.name, () => {
  it('maps basic.json: one trace, its three spans with types, usage, cost and parents', () => {
    const { batch } = fixture('basic.json');
    const { traces, spans, scores } = foldFacts([factsOf(batch)]);
    const [trace, root, generation, tool] = batch.map((e) => e.body as JsonObject);
    expect(scores).toEqual([]);
    expect(traces).toEqual([
      expect.objectContaining({
        id: trace.id,
        externalId: null,
        otelTraceId: null,
        createdAt: target.receivedAt,
        firstEventTime: '2025-01-15T10:00:00.000Z',
        minSpanStart: '2025-01-15T10:00:00.001Z',
        values: {
          name: 'weather-agent',
          userId: 'user-123',
          sessionId: 'session-abc',
          metadata: { env: 'test', fixture: 'basic' },
          tags: ['fixture', 'basic'],
        },
      }),
    ]);
    const span = (id: unknown) => spans.find((s) => s.id === id)?.values;
    expect(span(root.id)).toEqual({
      traceId: trace.id,
      name: 'agent-run',
      type: 'AGENT',
      operation: 'invoke_agent',
      startTime: '2025-01-15T10:00:00.001Z',
      endTime: '2025-01-15T10:00:02.400Z',
      input: { question: 'What is the weather in Paris?' },
      output: 'It is 18 °C and cloudy in Paris.',
      metadata: { agent: 'weather' },
    });
    expect(span(generation.id)).toMatchObject({
      parentId: root.id,
      type: 'LLM',
      operation: 'chat',
      model: 'gpt-4o-mini',
      promptTokens: 42,
      completionTokens: 17,
      totalTokens: 59,
      cost: 0.0000165,
    });
    expect(span(tool.id)).toMatchObject({ parentId: root.id, type: 'TOOL', operation: 'execute_tool', name: 'get_weather' });
  });

  it('stamps every field an event sets with that event’s version', () => {
    const facts = factsOf([
      event('span-create', { id: 's', traceId: 't', name: 'n', startTime: '2025-01-15T11:00:00+01:00', level: 'ERROR' }, 'e-9'),
    ]);
    const version = versionOf(AT, 'e-9');
    expect(facts.spans[0].versions).toEqual({ traceId: version, name: version, type: version, startTime: version, level: version });
  });

  it('turns a trace-create into the trace’s fields', () => {
    const body = {
      id: 't',
      name: 'n',
      timestamp: '2025-01-15T09:00:00-01:00',
      userId: 'u',
      sessionId: 's',
      metadata: { a: 1 },
      tags: ['x'],
      input: [1],
      output: false,
      release: 'r',
      version: 'v',
      environment: 'e',
    };
    expect(factsOf([event('trace-create', body)])).toEqual({
      ...emptyFacts(),
      traces: [
        {
          projectId: target.projectId,
          id: nativeId('t').id,
          otelTraceId: null,
          externalId: 't',
          createdAt: target.receivedAt,
          firstEventTime: AT,
          minSpanStart: null,
          values: { ...body, id: undefined, timestamp: AT },
          versions: Object.fromEntries(
            Object.keys(body)
              .filter((k) => k !== 'id')
              .map((k) => [k, versionOf(AT, 'event-1')]),
          ),
        },
      ],
    });
  });

  it.each([
    [
      'span-create without a type is CUSTOM',
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT },
      { type: 'CUSTOM', name: 'n', startTime: AT },
    ],
    [
      'span-update sets only what it carries',
      'span-update',
      { id: 's', traceId: 't', endTime: LATER, output: 'o' },
      { endTime: LATER, output: 'o' },
    ],
    [
      'span-update may change the type, and the operation with it',
      'span-update',
      { id: 's', traceId: 't', type: 'TOOL' },
      { type: 'TOOL', operation: 'execute_tool' },
    ],
    [
      'a type naming no operation sets none',
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, type: 'CHAIN' },
      { name: 'n', startTime: AT, type: 'CHAIN' },
    ],
    [
      'a RETRIEVAL span retrieves',
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, type: 'RETRIEVAL' },
      { name: 'n', startTime: AT, type: 'RETRIEVAL', operation: 'retrieval' },
    ],
    [
      'an EMBEDDING span embeds',
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, type: 'EMBEDDING' },
      { name: 'n', startTime: AT, type: 'EMBEDDING', operation: 'embeddings' },
    ],
    [
      'generation-create is LLM whatever it says',
      'generation-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, type: 'TOOL' },
      { type: 'LLM', operation: 'chat', name: 'n', startTime: AT },
    ],
    [
      'usage without total adds input and output',
      'generation-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, usage: { input: 3, output: 4 } },
      {
        type: 'LLM',
        operation: 'chat',
        name: 'n',
        startTime: AT,
        promptTokens: 3,
        completionTokens: 4,
        totalTokens: 7,
        usageDetails: { input: 3, output: 4 },
      },
    ],
    [
      'usageDetails name the types, over usage',
      'generation-update',
      { id: 's', traceId: 't', usage: { input: 3 }, usageDetails: { input: 1, input_cached_tokens: 2 } },
      { promptTokens: 3, usageDetails: { input: 1, cached_input: 2 } },
    ],
    [
      'usageDetails alone give the prompt and completion counts, cache and reasoning on their side',
      'generation-update',
      { id: 's', traceId: 't', usageDetails: { input: 1, cached_input: 2, output: 3, reasoning: 4, input_audio: 5 } },
      {
        promptTokens: 8,
        completionTokens: 7,
        totalTokens: 15,
        usageDetails: { input: 1, cached_input: 2, output: 3, reasoning: 4, input_audio: 5 },
      },
    ],
    [
      'usage with one count has no total',
      'generation-update',
      { id: 's', traceId: 't', usage: { input: 3 } },
      { promptTokens: 3, usageDetails: { input: 3 } },
    ],
    [
      'generation-update keeps the type',
      'generation-update',
      { id: 's', traceId: 't', model: 'm', modelParameters: { t: 1 }, cost: 0.5, statusMessage: 'x' },
      { model: 'm', modelParameters: { t: 1 }, cost: 0.5, statusMessage: 'x' },
    ],
    [
      'event-create is an EVENT with no duration',
      'event-create',
      { id: 's', traceId: 't', name: 'n', startTime: LATER, level: 'DEBUG' },
      { type: 'EVENT', operation: 'event', name: 'n', startTime: LATER, endTime: LATER, level: 'DEBUG' },
    ],
  ])('%s', (_, type, body, values) => {
    const { spans } = factsOf([event(type, body)]);
    expect(spans).toEqual([
      {
        projectId: target.projectId,
        id: nativeId('s').id,
        otelSpanId: null,
        externalId: 's',
        createdAt: target.receivedAt,
        values: { traceId: nativeId('t').id, ...values },
        versions: expect.any(Object),
      },
    ]);
  });

  it.each([
    ['span-create', { id: 's', traceId: 't', name: 'n', startTime: LATER }, LATER],
    ['span-update', { id: 's', traceId: 't', endTime: LATER }, null],
    ['span-update', { id: 's', traceId: 't', startTime: LATER }, LATER],
  ])('a %s mentions its trace without setting its fields', (type, body, minSpanStart) => {
    expect(factsOf([event(type, body)]).traces).toEqual([
      {
        projectId: target.projectId,
        id: nativeId('t').id,
        otelTraceId: null,
        externalId: 't',
        createdAt: target.receivedAt,
        firstEventTime: AT,
        minSpanStart,
        values: {},
        versions: {},
      },
    ]);
  });

  it('lets a span create its trace, which the later trace-create names; the earliest span dates it', () => {
    const spanFirst = factsOf([event('span-create', { id: 's2', traceId: 't', name: 'late', startTime: LATER }, 'e1', LATER)]);
    const trace = foldFacts([spanFirst]).traces[0];
    expect(trace.values.name).toBeUndefined();
    const all = foldFacts([
      spanFirst,
      factsOf([
        event('span-create', { id: 's1', traceId: 't', name: 'early', startTime: AT }, 'e2'),
        event('trace-create', { id: 't', name: 'named' }, 'e3', LATER),
      ]),
    ]);
    expect(all.traces).toEqual([expect.objectContaining({ values: { name: 'named' }, minSpanStart: AT, firstEventTime: AT })]);
  });

  it('maps a score: ids, inferred data type, API source and event time', () => {
    const [score] = factsOf([
      event('score-create', { id: 'my-score', traceId: 't', spanId: 's', name: 'quality', value: 'good', comment: 'c' }),
    ]).scores;
    expect(score).toEqual({
      projectId: target.projectId,
      id: nativeId('my-score').id,
      externalId: 'my-score',
      createdAt: target.receivedAt,
      values: {
        traceId: nativeId('t').id,
        spanId: nativeId('s').id,
        name: 'quality',
        value: 'good',
        dataType: 'CATEGORICAL',
        comment: 'c',
        source: 'API',
        timestamp: AT,
      },
      versions: expect.any(Object),
    });
    const inferred = (value: unknown) =>
      factsOf([event('score-create', { traceId: 't', name: 'q', value } as JsonObject)]).scores[0].values.dataType;
    expect([inferred(0.5), inferred(true), inferred('a')]).toEqual(['NUMERIC', 'BOOLEAN', 'CATEGORICAL']);
  });

  it('names a score sent without an id after its event: stable on retry, apart from client ids', () => {
    const idOf = (eventId: string) => factsOf([event('score-create', { traceId: 't', name: 'q', value: 1 }, eventId)]).scores[0];
    expect(idOf('e1')).toMatchObject({ id: idOf('e1').id, externalId: null });
    expect(idOf('e1').id).not.toBe(idOf('e2').id);
    expect(idOf('e1').id).not.toBe(nativeId('e1').id);
    expect(idOf('e1').id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('stores nothing for sdk-log', () => {
    expect(factsOf([event('sdk-log', { log: 'hello' })])).toEqual(emptyFacts());
  });

  it('keeps UUIDs (lower-cased) and maps other ids to UUIDv5, keeping the original', () => {
    const upper = 'D5A39CA2-188B-5A03-B501-4605B36CD75A';
    const { spans, traces } = factsOf([
      event('span-create', { id: upper, traceId: 'my-trace', parentObservationId: 'my-parent', name: 'n', startTime: AT }),
    ]);
    expect(spans[0]).toMatchObject({
      id: upper.toLowerCase(),
      externalId: null,
      values: { traceId: nativeId('my-trace').id, parentId: nativeId('my-parent').id },
    });
    expect(traces[0]).toMatchObject({ id: nativeId('my-trace').id, externalId: 'my-trace' });
  });

  it('names the OTel trace and its spans by their 32-hex and 16-hex ids in any case, as OTLP stored them', () => {
    const hex = '5b8efff798038103d269b633813fc60c';
    const [root, child] = ['eee19b7ec3c1b174', 'eee19b7ec3c1b175'];
    const facts = foldFacts([
      factsOf([
        event('trace-create', { id: hex.toUpperCase(), name: 'renamed' }, 'e1'),
        event('span-update', { id: root, traceId: hex, output: 'done' }, 'e2'),
        event(
          'span-create',
          { id: child.toUpperCase(), traceId: hex.toUpperCase(), parentObservationId: root.toUpperCase(), name: 'child', startTime: AT },
          'e3',
        ),
        event('event-create', { id: 'native-event', traceId: hex, parentObservationId: child, name: 'said', startTime: AT }, 'e4'),
        event('score-create', { traceId: hex.toUpperCase(), spanId: root, name: 'q', value: 1 }, 'e5'),
      ]),
    ]);
    expect(facts.traces).toEqual([
      expect.objectContaining({
        id: otelTraceUuid(hex),
        otelTraceId: hex,
        externalId: null,
        legacyIds: expect.arrayContaining([uuidV5(hex, SPANLOG_NAMESPACE), uuidV5(hex.toUpperCase(), SPANLOG_NAMESPACE)]),
      }),
    ]);
    const spans = Object.fromEntries(facts.spans.map((s) => [s.externalId ?? s.otelSpanId, s]));
    expect(spans[root]).toMatchObject({
      id: otelSpanUuid(hex, root),
      otelSpanId: root,
      externalId: null,
      values: { traceId: otelTraceUuid(hex), output: 'done' },
    });
    expect(spans[child]).toMatchObject({ id: otelSpanUuid(hex, child), otelSpanId: child, values: { parentId: otelSpanUuid(hex, root) } });
    expect(spans['native-event']).toMatchObject({
      id: nativeId('native-event').id,
      otelSpanId: null,
      values: { traceId: otelTraceUuid(hex), parentId: otelSpanUuid(hex, child) },
    });
    expect(facts.scores[0].values).toMatchObject({ traceId: otelTraceUuid(hex), spanId: otelSpanUuid(hex, root) });
    // A 16-hex span id is an OTel span id only beside its OTel trace id.
    const native = factsOf([
      event('span-create', { id: 'eee19b7ec3c1b174', traceId: 'my-trace', name: 'n', startTime: AT }),
      event('score-create', { traceId: 'my-trace', spanId: 'eee19b7ec3c1b174', name: 'q', value: 1 }),
    ]);
    expect(native.spans[0]).toMatchObject({ id: nativeId('eee19b7ec3c1b174').id, otelSpanId: null, externalId: 'eee19b7ec3c1b174' });
    expect(native.scores[0].values).toMatchObject({ traceId: nativeId('my-trace').id, spanId: nativeId('eee19b7ec3c1b174').id });
  });

  it('makes every string safe for Postgres: no NUL, no lone surrogate, in values, keys and ids', () => {
    const facts = factsOf([
      event(
        'trace-create',
        { id: 't\ud800', name: 'a\u0000b', tags: ['x\udc00'], metadata: { 'k\u0000': 'v\ud83d' }, input: ['\u0000'] },
        'e\u0000',
      ),
      event('span-create', { id: 's', traceId: 't\ud800', name: 'n', startTime: AT, statusMessage: 'bad\ud800' }),
    ]);
    expect(facts.traces[0]).toMatchObject({
      externalId: 't\ufffd',
      values: { name: 'ab', tags: ['x\ufffd'], metadata: { k: 'v\ufffd' }, input: [''] },
    });
    expect(facts.traces[0].versions.name).toBe(versionOf(AT, 'e'));
    expect(facts.spans[0].values.statusMessage).toBe('bad\ufffd');
    expect(facts.traces[1].id).toBe(facts.traces[0].id);
  });

  describe('out-of-order.json', () => {
    const { batch } = fixture('out-of-order.json');
    const perEvent = batch.map((e) => factsOf([e]));
    const expected = canonical(foldFacts(perEvent));

    it('merges into the rows the events describe', () => {
      const folded = foldFacts(perEvent);
      expect(folded.traces).toEqual([
        expect.objectContaining({
          values: { name: 'out-of-order-pipeline', tags: ['fixture', 'out-of-order'] },
          minSpanStart: '2025-01-15T10:01:00.000Z',
          firstEventTime: '2025-01-15T10:01:00.000Z',
        }),
      ]);
      expect(folded.spans).toHaveLength(4);
      const root = folded.spans.find((s) => s.values.name === 'pipeline');
      expect(root?.values).toEqual({
        traceId: 'af2807ad-164c-5ddb-8389-3db5058b376b',
        name: 'pipeline',
        type: 'AGENT',
        operation: 'invoke_agent',
        startTime: '2025-01-15T10:01:00.000Z',
        endTime: '2025-01-15T10:01:01.000Z',
        input: { text: 'the quick brown fox jumps over the lazy dog.' },
        output: { summary: 'A fox jumps over a dog.' },
        level: 'WARNING',
        statusMessage: 'summary truncated',
      });
    });

    it('gives the same rows in every one of the 5,040 orders of its events', () => {
      let orders = 0;
      for (const order of permutations(perEvent)) {
        expect(canonical(foldFacts(order))).toBe(expected);
        orders++;
      }
      expect(orders).toBe(5040);
    });

    it('gives the same rows when events arrive again', () => {
      expect(canonical(foldFacts([...perEvent, ...perEvent.slice(2), perEvent[0]]))).toBe(expected);
      expect(canonical(foldFacts([factsOf(batch), factsOf(batch)]))).toBe(expected);
    });
  });

  it('adds up max-batch.json: 10 traces of 99 spans, 630 tokens and 0.000189 each', () => {
    const { traces, spans } = foldFacts([factsOf(fixture('max-batch.json').batch)]);
    expect(traces).toHaveLength(10);
    expect(spans).toHaveLength(990);
    for (const trace of traces) {
      const own = spans.filter((s) => s.values.traceId === trace.id);
      expect(own).toHaveLength(99);
      expect(own.reduce((n, s) => n + (s.values.totalTokens ?? 0), 0)).toBe(630);
      expect(own.reduce((n, s) => n + (s.values.cost ?? 0), 0)).toBeCloseTo(0.000189, 12);
    }
  });

  it('never throws on what validation accepted, and always yields text Postgres takes', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('a', 'D5A39CA2-188B-5A03-B501-4605B36CD75A', '\ud800', '\u0000'),
    );
    const field = fc.oneof(
      text,
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(AT, LATER, 'LLM', 'WARNING', 'BOOLEAN', 1, true),
      fc.record({ input: fc.nat(), output: fc.nat() }, { requiredKeys: [] }),
    );
    const keys = [
      'id',
      'traceId',
      'parentObservationId',
      'name',
      'type',
      'timestamp',
      'startTime',
      'endTime',
      'userId',
      'tags',
      'metadata',
      'input',
      'output',
      'level',
      'statusMessage',
      'model',
      'usage',
      'cost',
      'spanId',
      'value',
      'dataType',
      'comment',
      'source',
    ];
    const body = fc
      .dictionary(fc.constantFrom(...keys), field, { maxKeys: 5 })
      .map((changes) => ({ id: 'x', traceId: 't', name: 'n', startTime: AT, value: 1, ...changes }));
    const anyEvent = fc.record({ id: text, type: fc.constantFrom(...NATIVE_EVENT_TYPES), timestamp: fc.constantFrom(AT, LATER), body });
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 10 }), (batch) => {
        const unsafe: string[] = [];
        const check = (s: string) => (s.includes('\u0000') || !s.isWellFormed()) && unsafe.push(s);
        JSON.parse(JSON.stringify(nativeEventsToFacts(validateNativeBatch({ batch }).events, target)), (key, value) => {
          check(key);
          if (typeof value === 'string') check(value);
          return value;
        });
        expect(unsafe).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
