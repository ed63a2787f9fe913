import { type SpanDelta, type SpanFields, stamped, versionOf } from '@app/domain';
import { leanAttributes } from './attribute-copies';

const delta = (values: Partial<SpanFields>, versions: Partial<Record<keyof SpanFields, string>> = {}): SpanDelta => {
  const d = stamped(values, versionOf('2024-01-01T00:00:00.000Z', 'e'));
  return {
    projectId: 'p',
    id: 's',
    otelSpanId: null,
    externalId: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    values: d.values,
    versions: { ...d.versions, ...versions },
  };
};

describe(leanAttributes.name, () => {
  it('leaves out the attributes that are the input and output the same event set, and names their keys', () => {
    const messages = [{ role: 'user' }];
    expect(
      leanAttributes(
        delta({ input: messages, output: 'done', attributes: { 'llm.input_messages': messages, 'output.value': 'done', other: 1 } }),
      ),
    ).toEqual({
      attributes: { other: 1 },
      input_attribute: 'llm.input_messages',
      output_attribute: 'output.value',
    });
  });

  it('gives input and output two keys when both are the same text', () => {
    expect(leanAttributes(delta({ input: 'x', output: 'x', attributes: { a: 'x', b: 'x' } }))).toEqual({
      attributes: {},
      input_attribute: 'a',
      output_attribute: 'b',
    });
  });

  it.each([
    ['an input of another event', delta({ input: 'x', attributes: { a: 'x' } }, { input: versionOf('2024-01-01T00:00:01.000Z', 'f') })],
    ['an input parsed from the attribute (another value)', delta({ input: [1], attributes: { a: '[1]' } })],
    ['no input or output', delta({ attributes: { a: 'x' } })],
    ['no attributes', delta({ input: 'x' })],
  ])('keeps the attributes whole for %s', (_, d) => {
    expect(leanAttributes(d)).toBeNull();
  });

  it('keeps an attribute named __proto__ as an own key', () => {
    const attributes = JSON.parse('{"__proto__": "kept", "prompt": "p"}');
    const lean = leanAttributes(delta({ input: 'p', attributes }));
    expect(JSON.stringify(lean?.attributes)).toBe('{"__proto__":"kept"}');
  });
});
