import { cutForAgent } from './agent-field';

describe(cutForAgent.name, () => {
  it('keeps a field that fits whole, as it is', () => {
    expect(cutForAgent({ a: 1 }, 10)).toEqual({ value: { a: 1 } });
    expect(cutForAgent('0123456789', 10)).toEqual({ value: '0123456789' });
    expect(cutForAgent(null, 10)).toEqual({ value: null });
  });

  it("cuts a longer field's text and names its full size in bytes", () => {
    expect(cutForAgent('é'.repeat(12), 10)).toEqual({ value: 'é'.repeat(10), fullBytes: 24 });
    expect(cutForAgent({ text: 'abcdefghij' }, 8)).toEqual({ value: '{"text":', fullBytes: 21 });
  });

  it('never splits a surrogate pair', () => {
    expect(cutForAgent(`abc${'😀'.repeat(5)}`, 4)).toEqual({ value: 'abc', fullBytes: 23 });
  });
});
