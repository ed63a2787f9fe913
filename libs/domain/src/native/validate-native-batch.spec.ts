import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { DomainError } from '../errors';
import type { JsonObject } from '../json/types';
import { MAX_BATCH_EVENTS, TELEMETRY_RANGES } from '../limits';
import { NATIVE_EVENT_TYPES, type NativeEventType } from './native-events.dto';
import { validateNativeBatch } from './validate-native-batch';

const fixture = (name: string): { batch: JsonObject[] } =>
  JSON.parse(readFileSync(resolve(__dirname, '../../../../../shared/fixtures/native', name), 'utf8'));

const AT = '2025-01-15T10:00:00.000Z';
const event = (type: string, body: unknown, extra: JsonObject = {}) => ({ id: 'event-1', type, timestamp: AT, body, ...extra });
const validateOne = (type: string, body: unknown) => validateNativeBatch({ batch: [event(type, body)] });

/** The smallest valid body of each type. */
const MINIMAL: Record<NativeEventType, JsonObject> = {
  'trace-create': { id: 'trace-1', name: 'agent run' },
  'span-create': { id: 'span-1', traceId: 'trace-1', name: 'step', startTime: AT },
  'span-update': { id: 'span-1', traceId: 'trace-1' },
  'generation-create': { id: 'gen-1', traceId: 'trace-1', name: 'chat', startTime: AT },
  'generation-update': { id: 'gen-1', traceId: 'trace-1' },
  'event-create': { id: 'event-1', traceId: 'trace-1', name: 'cache-miss', startTime: AT },
  'score-create': { traceId: 'trace-1', name: 'quality', value: 0.9 },
  'sdk-log': {},
};

/** A body with every field of its type set. */
const FULL: Record<NativeEventType, JsonObject> = {
  'trace-create': {
    id: 'trace-1',
    name: 'agent run',
    timestamp: AT,
    userId: 'user-1',
    sessionId: 'session-1',
    metadata: { env: 'test' },
    tags: ['a', 'b'],
    input: 'question',
    output: { answer: 42 },
    release: 'v1.2.3',
    version: '7',
    environment: 'production',
  },
  'span-create': {
    id: 'span-1',
    traceId: 'trace-1',
    parentObservationId: 'span-0',
    name: 'step',
    type: 'RETRIEVAL',
    startTime: AT,
    endTime: AT,
    input: [1, 2],
    output: 'result',
    metadata: {},
    level: 'WARNING',
    statusMessage: 'slow',
  },
  'span-update': {
    id: 'span-1',
    traceId: 'trace-1',
    name: 'step',
    type: 'MY_OWN_TYPE',
    startTime: AT,
    endTime: AT,
    output: true,
    level: 'ERROR',
    statusMessage: 'failed',
  },
  'generation-create': {
    id: 'gen-1',
    traceId: 'trace-1',
    parentObservationId: 'span-1',
    name: 'chat',
    startTime: AT,
    endTime: AT,
    model: 'gpt-4o-mini',
    modelParameters: { temperature: 0.2 },
    usage: { input: 42, output: 17, total: 59 },
    usageDetails: { input: 30, cached_input: 12, output: 17, input_audio_tokens: 0 },
    cost: 0.0000165,
    level: 'DEFAULT',
  },
  'generation-update': { id: 'gen-1', traceId: 'trace-1', endTime: AT, output: 'done', usage: { output: 3 }, cost: 0, model: 'gpt-4o' },
  'event-create': {
    id: 'event-1',
    traceId: 'trace-1',
    parentObservationId: 'span-1',
    name: 'cache-miss',
    startTime: AT,
    input: 'k',
    output: 'v',
    metadata: { k: 1 },
    level: 'DEBUG',
  },
  'score-create': {
    id: 'score-1',
    traceId: 'trace-1',
    spanId: 'span-1',
    name: 'correct',
    value: true,
    dataType: 'BOOLEAN',
    comment: 'ok',
    metadata: { by: 'me' },
    source: 'EVAL',
  },
  'sdk-log': { log: { level: 'info', message: 'hello' } },
};

describe(validateNativeBatch.name, () => {
  it.each(['basic.json', 'out-of-order.json', 'max-batch.json'])('accepts every event of %s', (name) => {
    const { batch } = fixture(name);
    const { events, errors } = validateNativeBatch({ batch });
    expect(errors).toEqual([]);
    expect(events.map((e) => [e.index, e.id, e.type])).toEqual(batch.map((e, index) => [index, e.id, e.type]));
  });

  it.each(NATIVE_EVENT_TYPES)('accepts a minimal and a complete %s', (type) => {
    const { events, errors } = validateNativeBatch({ batch: [event(type, MINIMAL[type]), event(type, FULL[type])] });
    expect(errors).toEqual([]);
    expect(events).toEqual([
      { index: 0, id: 'event-1', type, timestampMs: Date.parse(AT), body: expect.objectContaining(MINIMAL[type]) },
      { index: 1, id: 'event-1', type, timestampMs: Date.parse(AT), body: expect.objectContaining(FULL[type]) },
    ]);
  });

  it('accepts the bounds of TELEMETRY_RANGES themselves', () => {
    const { spanCost, spanTokens } = TELEMETRY_RANGES;
    const body = {
      ...MINIMAL['generation-create'],
      startTime: '2099-12-31T23:59:59.999Z',
      endTime: '1970-01-01T00:00:00Z',
      cost: spanCost.max,
      usage: { input: spanTokens.max, output: 0, total: spanTokens.max },
    };
    expect(validateOne('generation-create', body).errors).toEqual([]);
  });

  const long = (n: number) => 'x'.repeat(n);
  it.each([
    ['trace-create', { id: 'trace-1' }, 'body.name: must be a string of 1 to 1000 characters'],
    ['trace-create', { id: 'trace-1', name: '' }, 'body.name: must be a string of 1 to 1000 characters'],
    ['trace-create', { id: 'trace-1', name: long(1001) }, 'body.name: must be a string of 1 to 1000 characters'],
    ['trace-create', { id: '', name: 'n' }, 'body.id: must be a string of 1 to 256 characters'],
    ['trace-create', { id: long(257), name: 'n' }, 'body.id: must be a string of 1 to 256 characters'],
    ['trace-create', { id: 7, name: 'n' }, 'body.id: must be a string of 1 to 256 characters'],
    [
      'trace-create',
      { id: 't', name: 'n', timestamp: 'yesterday' },
      'body.timestamp: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    ['trace-create', { id: 't', name: 'n', userId: long(257) }, 'body.userId: must be a string of 0 to 256 characters'],
    ['trace-create', { id: 't', name: 'n', sessionId: 5 }, 'body.sessionId: must be a string of 0 to 256 characters'],
    ['trace-create', { id: 't', name: 'n', metadata: [] }, 'body.metadata: must be an object'],
    ['trace-create', { id: 't', name: 'n', tags: 'a,b' }, 'body.tags: must be an array of strings of at most 256 characters'],
    ['trace-create', { id: 't', name: 'n', tags: ['a', 1] }, 'body.tags: must be an array of strings of at most 256 characters'],
    ['trace-create', { id: 't', name: 'n', environment: {} }, 'body.environment: must be a string of 0 to 256 characters'],
    ['span-create', {}, 'body.id: must be a string of 1 to 256 characters'],
    ['span-create', { id: 's', name: 'n', startTime: AT }, 'body.traceId: must be a string of 1 to 256 characters'],
    ['span-create', { id: 's', traceId: 't', startTime: AT }, 'body.name: must be a string of 1 to 1000 characters'],
    [
      'span-create',
      { id: 's', traceId: 't', name: 'n' },
      'body.startTime: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: '2025-13-01T00:00:00Z' },
      'body.startTime: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, endTime: 1736935200000 },
      'body.endTime: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, parentObservationId: '' },
      'body.parentObservationId: must be a string of 1 to 256 characters',
    ],
    [
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, type: 'tool' },
      expect.stringMatching(/^body\.type: must be an upper-case word/),
    ],
    [
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, type: long(65).toUpperCase() },
      expect.stringMatching(/^body\.type: must be an upper-case word/),
    ],
    [
      'span-create',
      { id: 's', traceId: 't', name: 'n', startTime: AT, level: 'LOUD' },
      'body.level: must be one of DEBUG, DEFAULT, WARNING, ERROR',
    ],
    ['span-create', { id: 's', traceId: 't', name: 'n', startTime: AT, statusMessage: ['x'] }, 'body.statusMessage: must be a string'],
    ['generation-create', { id: 's', traceId: 't', name: 'n', startTime: AT, usageDetails: [] }, 'body.usageDetails: must be an object'],
    [
      'generation-update',
      { id: 's', traceId: 't', usageDetails: { input: -1 } },
      expect.stringMatching(/^body\.usageDetails\.input: must be a usage type of 1 to 64 letters/),
    ],
    [
      'generation-update',
      { id: 's', traceId: 't', usageDetails: { 'two words': 1 } },
      expect.stringMatching(/^body\.usageDetails\.two words: must be a usage type/),
    ],
    [
      'generation-update',
      { id: 's', traceId: 't', usageDetails: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`t${i}`, 1])) },
      'body.usageDetails: must name at most 32 usage types',
    ],
    ['span-update', { id: 's' }, 'body.traceId: must be a string of 1 to 256 characters'],
    ['span-update', { id: 's', traceId: 't', name: '' }, 'body.name: must be a string of 1 to 1000 characters'],
    [
      'span-update',
      { id: 's', traceId: 't', endTime: 'soon' },
      'body.endTime: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: { input: -1 } },
      'body.usage.input: must be an integer from 0 to 1000000000',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: { output: 1.5 } },
      'body.usage.output: must be an integer from 0 to 1000000000',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: { total: 2 ** 53 } },
      'body.usage.total: must be an integer from 0 to 1000000000',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: { input: 1_000_000_001 } },
      'body.usage.input: must be an integer from 0 to 1000000000',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, cost: 1.7976931348623157e308 },
      'body.cost: must be a number from 0 to 1000000',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, cost: 1_000_000.01 },
      'body.cost: must be a number from 0 to 1000000',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: '2100-01-01T00:00:00Z' },
      'body.startTime: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [
      'trace-create',
      { id: 't', name: 'n', timestamp: '9999-12-31T00:00:00Z' },
      'body.timestamp: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [
      'span-update',
      { id: 's', traceId: 't', endTime: '2024-02-30T00:00:00Z' },
      'body.endTime: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    ['generation-create', { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: [{ input: 1 }] }, 'body.usage: must be an object'],
    ['generation-create', { id: 'g', traceId: 't', name: 'n', startTime: AT, usage: 12 }, 'body.usage: must be an object'],
    ['generation-create', { id: 'g', traceId: 't', name: 'n', startTime: AT, cost: -0.5 }, 'body.cost: must be a number from 0 to 1000000'],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, cost: '0.1' },
      'body.cost: must be a number from 0 to 1000000',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, modelParameters: 'hot' },
      'body.modelParameters: must be an object',
    ],
    [
      'generation-create',
      { id: 'g', traceId: 't', name: 'n', startTime: AT, model: long(257) },
      'body.model: must be a string of 0 to 256 characters',
    ],
    ['generation-update', { id: 'g', traceId: 't', usage: { total: '3' } }, 'body.usage.total: must be an integer from 0 to 1000000000'],
    [
      'event-create',
      { id: 'e', traceId: 't', name: 'n' },
      'body.startTime: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    ['event-create', { id: 'e', traceId: 't', startTime: AT, name: 'n', metadata: 1 }, 'body.metadata: must be an object'],
    ['score-create', { name: 'q', value: 1 }, 'body.traceId: must be a string of 1 to 256 characters'],
    ['score-create', { traceId: 't', value: 1 }, 'body.name: must be a string of 1 to 1000 characters'],
    ['score-create', { traceId: 't', name: 'q' }, 'body.value: must be a number, a string or a boolean'],
    ['score-create', { traceId: 't', name: 'q', value: null }, 'body.value: must be a number, a string or a boolean'],
    ['score-create', { traceId: 't', name: 'q', value: { no: 1 } }, 'body.value: must be a number, a string or a boolean'],
    [
      'score-create',
      { traceId: 't', name: 'q', value: 'x', dataType: 'NUMERIC' },
      expect.stringMatching(/^body\.dataType: must be one of NUMERIC, CATEGORICAL, BOOLEAN and agree with the value/),
    ],
    ['score-create', { traceId: 't', name: 'q', value: 1, dataType: 'BOOLEAN' }, expect.stringMatching(/^body\.dataType: /)],
    ['score-create', { traceId: 't', name: 'q', value: 1, dataType: 'PERCENT' }, expect.stringMatching(/^body\.dataType: /)],
    ['score-create', { traceId: 't', name: 'q', value: 1, source: 'USER' }, 'body.source: must be one of API, EVAL, ANNOTATION'],
    ['score-create', { id: '', traceId: 't', name: 'q', value: 1 }, 'body.id: must be a string of 1 to 256 characters'],
  ])('refuses %s %j: %s', (type, body, message) => {
    const { events, errors } = validateOne(type, body);
    expect(events).toEqual([]);
    expect(errors).toEqual([{ index: 0, id: 'event-1', code: 'VALIDATION_ERROR', message: expect.stringMatching(/^batch\[0\]\.body\./) }]);
    expect(errors[0].message.slice('batch[0].'.length)).toEqual(message);
  });

  it.each([
    [null, null, 'batch[0]: must be an object'],
    [42, null, 'batch[0]: must be an object'],
    [[event('sdk-log', {})], null, 'batch[0]: must be an object'],
    [{ type: 'sdk-log', timestamp: AT, body: {} }, null, 'batch[0].id: must be a string of 1 to 256 characters'],
    [{ id: 'e', type: 'trace-update', timestamp: AT, body: {} }, 'e', `batch[0].type: must be one of ${NATIVE_EVENT_TYPES.join(', ')}`],
    [{ id: 'e', type: 'toString', timestamp: AT, body: {} }, 'e', expect.stringMatching(/^batch\[0\]\.type: must be one of/)],
    [
      { id: 'e', type: 'sdk-log', body: {} },
      'e',
      'batch[0].timestamp: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [
      { id: 'e', type: 'sdk-log', timestamp: 1736935200000, body: {} },
      'e',
      'batch[0].timestamp: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [
      { id: 'e', type: 'sdk-log', timestamp: '2025-02-31 25:00', body: {} },
      'e',
      'batch[0].timestamp: must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z',
    ],
    [{ id: 'e', type: 'sdk-log', timestamp: AT }, 'e', 'batch[0].body: must be an object'],
    [{ id: 'e', type: 'sdk-log', timestamp: AT, body: null }, 'e', 'batch[0].body: must be an object'],
    [{ id: 'e', type: 'sdk-log', timestamp: AT, body: [] }, 'e', 'batch[0].body: must be an object'],
  ])('checks the envelope %j', (raw, id, message) => {
    expect(validateNativeBatch({ batch: [raw] })).toEqual({ events: [], errors: [{ index: 0, id, code: 'VALIDATION_ERROR', message }] });
  });

  it('reports each refused event by index and id, and keeps the others', () => {
    const batch = [event('sdk-log', {}), { ...event('trace-create', {}), id: 'bad' }, event('sdk-log', {})];
    const { events, errors } = validateNativeBatch({ batch });
    expect(events.map((e) => e.index)).toEqual([0, 2]);
    expect(errors).toEqual([
      { index: 1, id: 'bad', code: 'VALIDATION_ERROR', message: 'batch[1].body.id: must be a string of 1 to 256 characters' },
    ]);
  });

  it('treats null as absent: optional fields vanish, required ones are missing', () => {
    const body = {
      id: 's',
      traceId: 't',
      name: 'n',
      startTime: AT,
      parentObservationId: null,
      endTime: null,
      level: null,
      input: null,
      metadata: null,
    };
    const [accepted] = validateOne('span-create', body).events;
    expect(Object.keys(accepted.body).sort()).toEqual(['id', 'name', 'startTime', 'traceId']);
    expect(validateOne('span-create', { ...body, name: null }).errors[0].message).toBe(
      'batch[0].body.name: must be a string of 1 to 1000 characters',
    );
    expect(validateOne('generation-update', { id: 'g', traceId: 't', usage: { input: null, output: 2 } }).events[0].body).toEqual({
      id: 'g',
      traceId: 't',
      usage: { output: 2 },
    });
  });

  it('ignores unknown fields, even ones named like Object.prototype members', () => {
    const body = JSON.parse(
      `{"id":"s","traceId":"t","name":"n","startTime":"${AT}","promptName":"p","constructor":1,"toString":2,"__proto__":{"x":1}}`,
    );
    const [accepted] = validateOne('span-create', body).events;
    expect(Object.keys(accepted.body).sort()).toEqual(['id', 'name', 'startTime', 'traceId']);
  });

  it('never lets an own __proto__ key lend the body its fields', () => {
    const proto = JSON.stringify({ id: 's', traceId: 't', name: 'n', startTime: AT, metadata: [1] });
    const orphan = JSON.parse(`{"batch":[{"id":"e","type":"span-create","timestamp":"${AT}","body":{"__proto__":${proto}}}]}`);
    expect(validateNativeBatch(orphan).errors[0].message).toBe('batch[0].body.id: must be a string of 1 to 256 characters');
    const valid = JSON.parse(`{"id":"s","traceId":"t","name":"n","startTime":"${AT}","__proto__":${proto}}`);
    expect(validateOne('span-create', valid).events[0].body).not.toHaveProperty('metadata');
    const envelope = JSON.parse(`{"batch":[{"__proto__":{"id":"e","type":"sdk-log","timestamp":"${AT}","body":{}}}]}`);
    expect(validateNativeBatch(envelope).errors[0].message).toBe('batch[0].id: must be a string of 1 to 256 characters');
  });

  it('keeps input and output as sent, by reference, whatever their keys', () => {
    const input = JSON.parse(
      '{"constructor":{"prototype":1},"toString":"x","valueOf":[],"__proto__":{"a":1},"nested":[{"hasOwnProperty":0}]}',
    );
    const [accepted] = validateOne('trace-create', { id: 't', name: 'n', input, output: input }).events;
    expect(accepted.type === 'trace-create' && accepted.body.input).toBe(input);
    expect(accepted.type === 'trace-create' && accepted.body.output).toBe(input);
  });

  it.each([
    ['2025-01-15T10:00:00Z', '2025-01-15T10:00:00.000Z'],
    ['2025-01-15T10:00:00+00:00', '2025-01-15T10:00:00.000Z'],
    ['2025-01-15T12:30:00.250+02:30', '2025-01-15T10:00:00.250Z'],
    ['2025-01-15T05:00:00-0500', '2025-01-15T10:00:00.000Z'],
    ['2025-01-15T10:00:00', '2025-01-15T10:00:00.000Z'],
    ['2025-01-15 10:00:00.123456Z', '2025-01-15T10:00:00.123Z'],
  ])('reads the timestamp %s as %s, in the envelope and the body', (sent, utc) => {
    const { events } = validateNativeBatch({
      batch: [{ ...event('span-create', { id: 's', traceId: 't', name: 'n', startTime: sent, endTime: sent }), timestamp: sent }],
    });
    expect(events[0].timestampMs).toBe(Date.parse(utc));
    expect(events[0].body).toMatchObject({ startTime: utc, endTime: utc });
  });

  it('ignores the type of a generation, which is always an LLM span', () => {
    expect(validateOne('generation-create', { ...MINIMAL['generation-create'], type: 'not even upper-case' }).errors).toEqual([]);
  });

  it.each([undefined, null, 'batch', [], {}, { batch: {} }, { batch: 'x' }, { events: [] }])(
    'refuses a body that is not a batch: %j',
    (body) => {
      expect(() => validateNativeBatch(body)).toThrow(new DomainError('VALIDATION_ERROR', 'body must be an object with a "batch" array'));
    },
  );

  it(`accepts ${MAX_BATCH_EVENTS} events and refuses one more as too large`, () => {
    const batch = Array.from({ length: MAX_BATCH_EVENTS + 1 }, (_, i) => ({ ...event('sdk-log', {}), id: `e${i}` }));
    expect(validateNativeBatch({ batch: batch.slice(1) }).events).toHaveLength(MAX_BATCH_EVENTS);
    expect(() => validateNativeBatch({ batch })).toThrow(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE', message: 'batch has 1001 events; at most 1000 are allowed' }),
    );
  });

  it('accepts an empty batch', () => {
    expect(validateNativeBatch({ batch: [] })).toEqual({ events: [], errors: [] });
  });

  it('takes huge strings and the deepest JSON the parser lets through', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 63; i++) deep = i % 2 ? [deep] : { d: deep };
    const huge = 'x'.repeat(5 * 1024 * 1024);
    const { events, errors } = validateNativeBatch({
      batch: [
        event('trace-create', { id: 't', name: 'n', input: deep, output: huge, metadata: { deep } }),
        event('trace-create', { id: 't', name: huge }),
      ],
    });
    expect(events).toHaveLength(1);
    expect(errors[0].message).toBe('batch[1].body.name: must be a string of 1 to 1000 characters');
  });

  it('never throws for any JSON value inside the batch', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 20 }), (batch) => {
        const { events, errors } = validateNativeBatch({ batch });
        expect([...events, ...errors].map((r) => r.index).sort((a, b) => a - b)).toEqual(batch.map((_, i) => i));
      }),
    );
  });

  it('gives the same answer every time', () => {
    const body = fixture('out-of-order.json');
    expect(validateNativeBatch(body)).toEqual(validateNativeBatch(JSON.parse(JSON.stringify(body))));
  });
});
