import { CliError } from '../output';
import { itemRequests, readJsonl } from './datasets.command';

describe(readJsonl.name, () => {
  it('reads one object per line and skips blank lines', () => {
    expect(readJsonl('{"id":"a"}\n\n{"id":"b","input":1}\n', 'items.jsonl')).toEqual([{ id: 'a' }, { id: 'b', input: 1 }]);
  });

  it.each([
    ['{"id":"a"}\n{oops', 'items.jsonl:2: not JSON'],
    ['[1,2]', 'items.jsonl:1: must be an object such as {"input": …, "expectedOutput": …}'],
  ])('names the line at fault in %j', (text, message) => {
    expect(() => readJsonl(text, 'items.jsonl')).toThrow(CliError);
    expect(() => readJsonl(text, 'items.jsonl')).toThrow(message);
  });
});

describe(itemRequests.name, () => {
  it('cuts the items into requests of at most 1,000, in order', () => {
    const items = Array.from({ length: 2_500 }, (_, i) => ({ id: `i${i}` }));
    const requests = itemRequests(items);
    expect(requests.map((r) => r.length)).toEqual([1_000, 1_000, 500]);
    expect(requests.flat()).toEqual(items);
  });

  it('cuts before a request would pass the body limit', () => {
    const items = Array.from({ length: 5 }, (_, i) => ({ id: `i${i}`, input: 'x'.repeat(40) }));
    expect(itemRequests(items, 130).map((r) => r.length)).toEqual([2, 2, 1]);
  });
});
