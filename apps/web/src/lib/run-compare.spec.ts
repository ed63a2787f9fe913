import { bestScores, outputsDiffer, runCsv, scoreNames } from './run-compare';

const score = (name: string, value: number | string | boolean) => ({ name, value, comment: null, timestamp: '2026-01-01T00:00:00Z' });
const item = (id: string, output: unknown, scores: ReturnType<typeof score>[]) => ({
  datasetItemId: id,
  traceId: `t-${id}`,
  spanId: null,
  input: { q: `a "quoted", multi\nline ${id}` },
  expectedOutput: 'Paris',
  output: output as string,
  latencyMs: 120,
  totalTokens: 10,
  totalCost: 0.001,
  scores,
  createdAt: '2026-01-01T00:00:00Z',
});

describe('run comparison', () => {
  it('marks the highest score of an item, all runs tied at the top, and nothing when every run agrees', () => {
    const best = bestScores([
      { scores: [score('exact', 1), score('tone', 'polite'), score('len', 3)] },
      { scores: [score('exact', 0), score('tone', 'rude'), score('len', 3)] },
      null,
      { scores: [score('exact', true)] },
    ]);
    expect(best).toEqual(new Map([['exact', new Set([0, 3])]]));
    expect(bestScores([{ scores: [score('exact', 1)] }, null])).toEqual(new Map());
  });
  it('tells different outputs apart, a missing result not counting', () => {
    expect(outputsDiffer([{ output: 'Paris' }, { output: 'Paris' }, null])).toBe(false);
    expect(outputsDiffer([{ output: 'Lima' }, { output: 'Cusco' }])).toBe(true);
    expect(outputsDiffer([{ output: { a: 1 } }, { output: { a: 1 } }])).toBe(false);
  });
  it('names scores in first-seen order', () => {
    expect(
      scoreNames([
        [{ name: 'b' }, { name: 'a' }],
        [{ name: 'a' }, { name: 'c' }],
      ]),
    ).toEqual(['b', 'a', 'c']);
  });
  it("writes a run's items as CSV, JSON values as JSON text, a column per score", () => {
    expect(runCsv([item('x', 'Paris', [score('exact', 1)]), item('y', 'Cusco, Peru', [score('exact', 0), score('tone', 'rude')])])).toBe(
      'datasetItemId,traceId,spanId,input,expectedOutput,output,latencyMs,totalTokens,totalCost,exact,tone\r\n' +
        'x,t-x,,"{""q"":""a \\""quoted\\"", multi\\nline x""}",Paris,Paris,120,10,0.001,1,\r\n' +
        'y,t-y,,"{""q"":""a \\""quoted\\"", multi\\nline y""}",Paris,"Cusco, Peru",120,10,0.001,0,rude\r\n',
    );
  });
});
