import { MAX_JSON_DEPTH } from '@app/domain';
import { decodeAnyValue, decodeAttributes, decodeKeyValue } from './attributes';
import { validateOtlpRequest } from './validate-otlp-request';
import { exportOf, kv, span } from './testing/otlp-builders';

const nest = (levels: number): object => {
  let value: object = { stringValue: 'leaf' };
  for (let i = 0; i < levels; i++) value = { arrayValue: { values: [value] } };
  return value;
};
const depthOf = (value: unknown): number => (Array.isArray(value) ? 1 + depthOf(value[0]) : 0);

describe(decodeAnyValue.name, () => {
  it.each<[string, unknown, unknown]>([
    ['not an object', 'x', null],
    ['an array', [], null],
    ['several members: the first in proto order', { intValue: 1, stringValue: 's' }, 's'],
    ['a null member is absent', { stringValue: null, boolValue: true }, true],
    ['an unreadable intValue', { intValue: 'x' }, null],
    ['bytes that are not base64', { bytesValue: '!!' }, null],
    ['arrayValue without values', { arrayValue: {} }, []],
    ['kvlistValue without values', { kvlistValue: {} }, {}],
  ])('%s', (_, value, decoded) => expect(decodeAnyValue(value)).toEqual(decoded));

  it('decodes every level the validator accepts', () => {
    const value = nest(MAX_JSON_DEPTH);
    expect(() => validateOtlpRequest(exportOf([span({ attributes: [kv('k', value)] })]))).not.toThrow();
    expect(depthOf(decodeAnyValue(value))).toBe(MAX_JSON_DEPTH);
  });

  it('stops at the depth bound on unvalidated input instead of exhausting the stack', () => {
    expect(() => decodeAnyValue(nest(100_000))).not.toThrow();
    expect(depthOf(decodeAnyValue(nest(100)))).toBe(MAX_JSON_DEPTH + 1);
  });
});

describe(decodeKeyValue.name, () => {
  it.each<[unknown, unknown]>([
    [{ key: 'k', value: { stringValue: 'v' } }, ['k', 'v']],
    [{ key: 'k' }, ['k', null]],
    [{ value: { stringValue: 'v' } }, null],
    [{ key: 1 }, null],
    ['k', null],
  ])('%p → %p', (keyValue, entry) => expect(decodeKeyValue(keyValue)).toEqual(entry));
});

describe(decodeAttributes.name, () => {
  it('skips entries without a key and reads a non-array as no attributes', () => {
    expect(decodeAttributes([{ key: 'a', value: { boolValue: true } }, 1, { value: {} }])).toEqual({ a: true });
    expect(decodeAttributes({ key: 'a' })).toEqual({});
    expect(decodeAttributes(undefined)).toEqual({});
  });
});
