import { DomainError } from '@app/domain';
import type { Span } from './otlp-types';
import { exportOf, kv, span, str } from './testing/otlp-builders';
import { MAX_LISTED_PROBLEMS } from './otlp-checks';
import { validateOtlpRequest } from './validate-otlp-request';

const SPAN = 'resourceSpans[0].scopeSpans[0].spans[0]';

/** The validation message for a body, or null when it is valid. */
function problemsOf(body: unknown): string | null {
  try {
    validateOtlpRequest(body);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('VALIDATION_ERROR');
    return (err as DomainError).message;
  }
}

const withSpan = (overrides: Record<string, unknown>) => exportOf([span(overrides as Partial<Span>)]);

describe(validateOtlpRequest.name, () => {
  describe('accepts', () => {
    it.each<[string, unknown, number]>([
      ['an empty export', {}, 0],
      ['an empty resourceSpans', { resourceSpans: [] }, 0],
      ['null resourceSpans (proto3: absent)', { resourceSpans: null }, 0],
      ['snake_case keys, ignored as unknown', { resource_spans: [{ scope_spans: [{ spans: [{}] }] }] }, 0],
      ['unknown fields anywhere', { x: 1, resourceSpans: [{ y: 2, scopeSpans: [{ z: 3, spans: [{ ...span(), w: 4 }] }] }] }, 1],
      ['resources and scopes without spans', { resourceSpans: [{}, { scopeSpans: [{}, { spans: [] }] }] }, 0],
      [
        'a minimal span: ids only',
        { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174' }] }] }] },
        1,
      ],
      [
        'upper-case hex',
        withSpan({ traceId: '5B8EFFF798038103D269B633813FC60C', spanId: 'EEE19B7EC3C1B174', parentSpanId: 'EEE19B7EC3C1B173' }),
        1,
      ],
      ['an empty parentSpanId', withSpan({ parentSpanId: '' }), 1],
      ['an all-zero parentSpanId', withSpan({ parentSpanId: '0000000000000000' }), 1],
      ['an absent parentSpanId', withSpan({ parentSpanId: undefined }), 1],
      ['times as JSON numbers', withSpan({ startTimeUnixNano: 1544712660000000000, endTimeUnixNano: 0 }), 1],
      ['times as decimal strings', withSpan({ startTimeUnixNano: '1544712660000000000', endTimeUnixNano: '4102444799999999999' }), 1],
      ['an unnamed kind integer', withSpan({ kind: 42 }), 1],
      ['status with code and message', withSpan({ status: { code: 2, message: 'boom' } }), 1],
      [
        'every AnyValue member',
        withSpan({
          attributes: [
            kv('s', str('x')),
            kv('i', { intValue: '-9223372036854775808' }),
            kv('n', { intValue: 3 }),
            kv('d', { doubleValue: 'NaN' }),
            kv('e', { doubleValue: '1e3' }),
            kv('b', { boolValue: true }),
            kv('y', { bytesValue: 'AQID' }),
            kv('a', { arrayValue: { values: [{ stringValue: 'x' }, {}] } }),
            kv('k', { kvlistValue: { values: [kv('inner', { arrayValue: {} })] } }),
            kv('empty', {}),
            { key: 'novalue' } as never,
          ],
        }),
        1,
      ],
      [
        'events and links',
        withSpan({
          events: [{ name: 'e', timeUnixNano: '1', attributes: [] }],
          links: [{ traceId: '00000000000000000000000000000000', spanId: 'eee19b7ec3c1b174' }],
        }),
        1,
      ],
      ['three spans', exportOf([span(), span(), span()]), 3],
    ])('%s', (_, body, spanCount) => {
      expect(problemsOf(body)).toBeNull();
      expect(validateOtlpRequest(body)).toEqual({ spanCount });
    });
  });

  describe('refuses, naming the path', () => {
    it.each<[string, unknown, string]>([
      ['a non-object body', [], 'request body: must be an object (ExportTraceServiceRequest)'],
      ['a string body', 'x', 'request body: must be an object (ExportTraceServiceRequest)'],
      ['null', null, 'request body: must be an object (ExportTraceServiceRequest)'],
      ['resourceSpans not an array', { resourceSpans: {} }, 'resourceSpans: must be an array'],
      ['a resourceSpans item not an object', { resourceSpans: [1] }, 'resourceSpans[0]: must be an object'],
      ['resource not an object', { resourceSpans: [{ resource: [] }] }, 'resourceSpans[0].resource: must be an object'],
      [
        'resource attributes not an array',
        { resourceSpans: [{ resource: { attributes: {} } }] },
        'resourceSpans[0].resource.attributes: must be an array',
      ],
      ['scopeSpans not an array', { resourceSpans: [{ scopeSpans: 'x' }] }, 'resourceSpans[0].scopeSpans: must be an array'],
      [
        'scope name not a string',
        { resourceSpans: [{ scopeSpans: [{ scope: { name: 1 } }] }] },
        'resourceSpans[0].scopeSpans[0].scope.name: must be a string',
      ],
      [
        'scope version not a string',
        { resourceSpans: [{ scopeSpans: [{ scope: { version: 1 } }] }] },
        'resourceSpans[0].scopeSpans[0].scope.version: must be a string',
      ],
      [
        'spans not an array',
        { resourceSpans: [{ scopeSpans: [{ spans: {} }] }] },
        'resourceSpans[0].scopeSpans[0].spans: must be an array',
      ],
      ['a span not an object', { resourceSpans: [{ scopeSpans: [{ spans: ['x'] }] }] }, `${SPAN}: must be an object`],
      ['a missing traceId', withSpan({ traceId: undefined }), `${SPAN}.traceId: must be 32 hex characters`],
      ['a short traceId', withSpan({ traceId: '5b8efff798038103d269b633813fc60' }), `${SPAN}.traceId: must be 32 hex characters`],
      ['a non-hex traceId', withSpan({ traceId: 'zb8efff798038103d269b633813fc60c' }), `${SPAN}.traceId: must be 32 hex characters`],
      [
        'a base64 traceId (protobuf JSON mapping)',
        withSpan({ traceId: 'W47/95gDgQPSabYzgT/GDA==' }),
        `${SPAN}.traceId: must be 32 hex characters`,
      ],
      ['an all-zero traceId', withSpan({ traceId: '0'.repeat(32) }), `${SPAN}.traceId: must not be all zeros`],
      ['a numeric spanId', withSpan({ spanId: 1234567890123456 }), `${SPAN}.spanId: must be 16 hex characters`],
      ['an odd-length spanId', withSpan({ spanId: 'eee19b7ec3c1b17' }), `${SPAN}.spanId: must be 16 hex characters`],
      ['an all-zero spanId', withSpan({ spanId: '0'.repeat(16) }), `${SPAN}.spanId: must not be all zeros`],
      ['a bad parentSpanId', withSpan({ parentSpanId: 'xyz' }), `${SPAN}.parentSpanId: must be empty or 16 hex characters`],
      ['a name that is not a string', withSpan({ name: 5 }), `${SPAN}.name: must be a string`],
      [
        'a kind enum name',
        withSpan({ kind: 'SPAN_KIND_SERVER' }),
        `${SPAN}.kind: must be an integer, not an enum name ("SPAN_KIND_SERVER")`,
      ],
      ['a fractional kind', withSpan({ kind: 1.5 }), `${SPAN}.kind: must be an integer`],
      [
        'a negative time',
        withSpan({ startTimeUnixNano: -1 }),
        `${SPAN}.startTimeUnixNano: must be a non-negative integer of nanoseconds since the Unix epoch, as a decimal string or a number`,
      ],
      ['a fractional time', withSpan({ endTimeUnixNano: 1.5 }), `${SPAN}.endTimeUnixNano: must be a non-negative integer of nanoseconds`],
      ['an ISO time', withSpan({ startTimeUnixNano: '2025-01-01T00:00:00Z' }), `${SPAN}.startTimeUnixNano: must be a non-negative integer`],
      [
        'a time as an object (LongBits)',
        withSpan({ startTimeUnixNano: { low: 1, high: 2 } }),
        `${SPAN}.startTimeUnixNano: must be a non-negative integer`,
      ],
      [
        'a time past 2099',
        withSpan({ startTimeUnixNano: '4102444800000000000' }),
        `${SPAN}.startTimeUnixNano: must be a time no later than 2099-12-31T23:59:59.999Z`,
      ],
      [
        'a time in year 9999',
        withSpan({ endTimeUnixNano: '253402300799999999999' }),
        `${SPAN}.endTimeUnixNano: must be a time no later than 2099-12-31T23:59:59.999Z`,
      ],
      ['attributes not an array', withSpan({ attributes: {} }), `${SPAN}.attributes: must be an array`],
      ['an attribute not an object', withSpan({ attributes: ['x'] }), `${SPAN}.attributes[0]: must be an object with a key and a value`],
      [
        'an attribute without a key',
        withSpan({ attributes: [{ value: { stringValue: 'x' } }] }),
        `${SPAN}.attributes[0].key: must be a string`,
      ],
      [
        'an attribute value not an object',
        withSpan({ attributes: [{ key: 'k', value: 'x' }] }),
        `${SPAN}.attributes[0].value: must be an object (AnyValue)`,
      ],
      [
        'a stringValue that is a number',
        withSpan({ attributes: [kv('k', { stringValue: 1 } as never)] }),
        `${SPAN}.attributes[0].value.stringValue: must be a string`,
      ],
      [
        'an intValue with a fraction',
        withSpan({ attributes: [kv('k', { intValue: '1.5' })] }),
        `${SPAN}.attributes[0].value.intValue: must be a 64-bit integer`,
      ],
      [
        'an intValue beyond int64',
        withSpan({ attributes: [kv('k', { intValue: '9223372036854775808' })] }),
        `${SPAN}.attributes[0].value.intValue: must be a 64-bit integer`,
      ],
      [
        'a doubleValue that is text',
        withSpan({ attributes: [kv('k', { doubleValue: 'abc' })] }),
        `${SPAN}.attributes[0].value.doubleValue: must be a number`,
      ],
      [
        'a boolValue that is text',
        withSpan({ attributes: [kv('k', { boolValue: 'true' } as never)] }),
        `${SPAN}.attributes[0].value.boolValue: must be a boolean`,
      ],
      [
        'bytesValue that is not base64',
        withSpan({ attributes: [kv('k', { bytesValue: 'not base64!' })] }),
        `${SPAN}.attributes[0].value.bytesValue: must be a base64 string`,
      ],
      [
        'arrayValue.values not an array',
        withSpan({ attributes: [kv('k', { arrayValue: { values: {} } } as never)] }),
        `${SPAN}.attributes[0].value.arrayValue.values: must be an array`,
      ],
      [
        'a bad value inside an array',
        withSpan({ attributes: [kv('k', { arrayValue: { values: [{}, { intValue: 'x' }] } })] }),
        `${SPAN}.attributes[0].value.arrayValue.values[1].intValue: must be a 64-bit integer`,
      ],
      [
        'a bad key inside a kvlist',
        withSpan({ attributes: [kv('k', { kvlistValue: { values: [{ key: 1 }] } } as never)] }),
        `${SPAN}.attributes[0].value.kvlistValue.values[0].key: must be a string`,
      ],
      [
        'a status code enum name',
        withSpan({ status: { code: 'STATUS_CODE_ERROR' } }),
        `${SPAN}.status.code: must be an integer, not an enum name ("STATUS_CODE_ERROR")`,
      ],
      ['a status message that is not a string', withSpan({ status: { message: {} } }), `${SPAN}.status.message: must be a string`],
      ['a status that is not an object', withSpan({ status: 2 }), `${SPAN}.status: must be an object`],
      [
        'an event time that is not an integer',
        withSpan({ events: [{ timeUnixNano: 'soon' }] }),
        `${SPAN}.events[0].timeUnixNano: must be a non-negative integer`,
      ],
      [
        'a link with a bad span id',
        withSpan({ links: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'x' }] }),
        `${SPAN}.links[0].spanId: must be 16 hex characters`,
      ],
      [
        'a bad scope attribute',
        { resourceSpans: [{ scopeSpans: [{ scope: { attributes: [1] } }] }] },
        'resourceSpans[0].scopeSpans[0].scope.attributes[0]: must be an object with a key and a value',
      ],
    ])('%s', (_, body, expected) => {
      expect(problemsOf(body)).toContain(expected);
    });

    it('names the span at fault among several', () => {
      const body = exportOf([span(), span(), span(), span({ traceId: 'abc' })]);
      expect(problemsOf(body)).toBe('resourceSpans[0].scopeSpans[0].spans[3].traceId: must be 32 hex characters');
    });

    it('lists every problem, separated by semicolons', () => {
      expect(problemsOf(withSpan({ traceId: 'x', spanId: 'y', kind: 'SPAN_KIND_CLIENT' }))).toBe(
        [
          `${SPAN}.traceId: must be 32 hex characters`,
          `${SPAN}.spanId: must be 16 hex characters`,
          `${SPAN}.kind: must be an integer, not an enum name ("SPAN_KIND_CLIENT")`,
        ].join('; '),
      );
    });

    it(`lists at most ${MAX_LISTED_PROBLEMS} problems and counts the rest`, () => {
      const body = exportOf(Array.from({ length: 30 }, () => span({ traceId: 'x' })));
      const message = problemsOf(body) as string;
      expect(message.split('; ').filter((p) => p.includes('traceId'))).toHaveLength(MAX_LISTED_PROBLEMS);
      expect(message).toMatch(/; and 10 more problems$/);
    });

    it('refuses AnyValues nested deeper than it decodes, without recursion', () => {
      let value: object = { stringValue: 'leaf' };
      for (let i = 0; i < 10_000; i++) value = { arrayValue: { values: [value] } };
      const message = problemsOf(withSpan({ attributes: [kv('deep', value)] })) as string;
      expect(message).toContain('must not nest arrays or kvlists more than 64 levels deep');
      expect(message.split('; ')).toHaveLength(1);
    });
  });
});
