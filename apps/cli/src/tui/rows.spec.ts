import fc from 'fast-check';
import {
  monitorHeaderRow,
  monitorHistoryRow,
  monitorMetricText,
  monitorRow,
  spanDetailLines,
  spanHeaderRow,
  spanPreviewLines,
  spanRow,
  traceHeaderLines,
  traceHeaderRow,
  traceRow,
  windowText,
} from './rows';
import { spanTree } from './span-tree';
import type { Monitor, Span, Trace, TraceSummary } from './spanlog-rpc';
import { displayWidth } from './text';

const NOW = new Date('2026-11-24T12:00:00Z');

const summary = (over: Partial<TraceSummary> = {}): TraceSummary => ({
  id: 't1',
  name: 'checkout flow',
  timestamp: '2026-11-24T11:59:58Z',
  userId: 'alice',
  tags: ['prod'],
  input: null,
  output: null,
  spanCount: 3,
  totalTokens: 1700,
  totalCost: 0.0123,
  latencyMs: 1234,
  ...over,
});

const span = (over: Partial<Span> = {}): Span => ({
  id: 's1',
  parentId: null,
  name: 'agent',
  type: 'AGENT',
  operation: null,
  model: null,
  promptTokens: null,
  completionTokens: null,
  cost: null,
  input: null,
  output: null,
  startTime: '2026-11-24T11:59:58.000Z',
  endTime: '2026-11-24T11:59:59.234Z',
  level: 'DEFAULT',
  statusMessage: null,
  ...over,
});

const trace = (spans: Span[], over: Partial<Trace> = {}): Trace => ({
  ...summary(),
  spans,
  scores: [],
  scoreCount: 0,
  nextSpansCursor: null,
  ...over,
});

describe('trace list rows', () => {
  it('lays out an 80-column row with every column in place', () => {
    expect(traceHeaderRow(80)).toBe('  TIME     NAME                      USER         SPANS  LATENCY TOKENS     COST');
    expect(traceRow(summary(), true, 80, NOW)).toBe('› 11:59:58 checkout flow             alice            3   1.23 s   1.7k  $0.0123');
  });

  it('is exactly as wide as the terminal, whatever the values and the width', () => {
    const text = fc.string({ unit: 'binary', maxLength: 300 });
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 240 }), text, text, fc.boolean(), (width, name, userId, selected) => {
        const row = traceRow(summary({ name, userId, totalCost: 123_456.78, latencyMs: 9e9, totalTokens: 5e9 }), selected, width, NOW);
        expect(displayWidth(row)).toBe(width);
        expect(displayWidth(traceHeaderRow(width))).toBe(width);
      }),
    );
  });
});

describe('trace view rows', () => {
  const spans = [
    span(),
    span({
      id: 's2',
      parentId: 's1',
      name: 'llm call',
      type: 'LLM',
      model: 'gpt-4o-mini',
      promptTokens: 120,
      completionTokens: 45,
      cost: 0.0012,
      startTime: '2026-11-24T11:59:58.100Z',
      endTime: '2026-11-24T11:59:58.900Z',
      input: [{ role: 'user', content: 'hi\nthere' }],
      output: 'hello',
    }),
    span({
      id: 's3',
      parentId: 's1',
      name: 'search',
      type: 'TOOL',
      startTime: '2026-11-24T11:59:58.200Z',
      endTime: null,
      level: 'ERROR',
      statusMessage: 'timed\nout',
    }),
  ];
  const rows = spanTree(spans);

  it('shows the tree with duration, model, tokens and cost, and marks an error span', () => {
    expect(spanHeaderRow(80)).toBe('  SPAN                   TYPE       DURATION MODEL               TOKENS     COST');
    expect(rows.map((r) => spanRow(r, false, 80))).toEqual([
      '  agent                  AGENT        1.23 s                                   –',
      '  ├─llm call             LLM          800 ms gpt-4o-mini         120→45  $0.0012',
      '! └─search               TOOL              –                                   –',
    ]);
    expect(spanRow(rows[2], true, 80).startsWith('› └─search')).toBe(true);
  });

  it('is exactly as wide as the terminal for deep trees and long names', () => {
    const deep = spanTree(
      Array.from({ length: 30 }, (_, i) => span({ id: `d${i}`, parentId: i ? `d${i - 1}` : null, name: 'x'.repeat(i * 7) })),
    );
    for (const width of [40, 80, 133]) for (const row of deep) expect(displayWidth(spanRow(row, false, width))).toBe(width);
  });

  it('previews the selected span with its input and output on one line each', () => {
    expect(spanPreviewLines(spans[1], trace(spans))).toEqual([
      'llm call · LLM · gpt-4o-mini',
      'start 2026-11-24T11:59:58.100Z · 800 ms · tokens 120→45 · cost $0.0012',
      'input  [{"role":"user","content":"hi\\nthere"}]',
      'output hello',
      'Enter: the whole input and output',
    ]);
    expect(spanPreviewLines(spans[2], trace(spans))).toContain('level ERROR: timed out');
  });

  it('names the operation beside the type', () => {
    const tool = span({ name: 'search', type: 'LLM', operation: 'execute_tool' });
    expect(spanPreviewLines(tool, trace([tool]))[0]).toEqual('search · LLM execute_tool');
  });

  it('details the whole input and output, messages as turns, with the span scores', () => {
    const scored = trace(spans, { scores: [{ id: 'c1', spanId: 's2', name: 'helpful', value: 0.8333333 }] });
    const lines = spanDetailLines(spans[1], scored, 30);
    expect(lines).toContain('scores helpful=0.833');
    expect(lines.slice(lines.indexOf('── input ─────────────────────'))).toEqual([
      '── input ─────────────────────',
      'user:',
      '  hi',
      '  there',
      '── output ────────────────────',
      'hello',
    ]);
  });

  it('heads the trace with its totals, and its own scores only', () => {
    const withScores = trace(spans, {
      scores: [
        { id: 'c1', spanId: 's2', name: 'helpful', value: 1 },
        { id: 'c2', spanId: null, name: 'tone', value: 'polite' },
      ],
    });
    expect(traceHeaderLines(withScores, NOW)).toEqual([
      'checkout flow · 11:59:58 · 1.23 s · 1.7k tokens · $0.0123 · 3 spans',
      'id t1 · user alice · tags prod · scores tone=polite',
    ]);
    expect(traceHeaderLines(trace(spans, { scores: [{ id: 'c1', spanId: 's2', name: 'helpful', value: 1 }] }), NOW)[1]).toBe(
      'id t1 · user alice · tags prod',
    );
  });
});

describe('monitor rows', () => {
  const monitor = (over: Partial<Monitor> = {}): Monitor => ({
    id: 'm1',
    projectId: 'p1',
    name: 'slow answers',
    metric: 'latency_p95',
    scoreName: null,
    filter: { model: 'gpt-4o' },
    windowSeconds: 3600,
    comparison: '>',
    threshold: 2000,
    enabled: true,
    state: 'ALERT',
    value: 2345.678,
    evaluatedAt: '2026-11-24T11:59:00Z',
    createdAt: '2026-11-24T10:00:00Z',
    updatedAt: '2026-11-24T10:00:00Z',
    ...over,
  });

  it('says what a monitor watches, over which window', () => {
    expect(monitorMetricText(monitor())).toBe('latency_p95 of gpt-4o over 1h');
    expect(monitorMetricText(monitor({ metric: 'score_pass_rate', scoreName: 'helpful', filter: {}, windowSeconds: 300 }))).toBe(
      'score_pass_rate(helpful) over 5m',
    );
    expect([windowText(604_800), windowText(5400), windowText(90)]).toEqual(['7d', '90m', '90s']);
  });

  it('shows the state, value and threshold, marks an alert, and tells a monitor not yet evaluated or disabled', () => {
    expect(monitorHeaderRow(80)).toBe('  STATE   MONITOR      WATCHES                      VALUE  THRESHOLD CHECKED    ');
    expect(monitorRow(monitor(), false, 80, NOW)).toBe('! ALERT   slow answers latency_p95 of gpt-4o o…      2346     > 2000 11:59:00   ');
    expect(monitorRow(monitor({ state: null, value: null, evaluatedAt: null }), false, 80, NOW)).toMatch(/^ {2}PENDING /);
    expect(monitorRow(monitor({ enabled: false }), false, 80, NOW)).toMatch(/^ {2}OFF /);
    for (const width of [40, 80, 120]) expect(displayWidth(monitorRow(monitor(), true, width, NOW))).toBe(width);
  });

  it('writes a change of state with the value against the threshold it was judged by', () => {
    const change = {
      at: '2026-11-24T11:59:00Z',
      state: 'ALERT',
      previousState: 'NO_DATA',
      value: 2345.678,
      threshold: 2000,
      comparison: '>',
      windowStart: '2026-11-24T11:00:00Z',
      windowEnd: '2026-11-24T12:00:00Z',
    } as const;
    expect(monitorHistoryRow(change, 80, NOW).trimEnd()).toBe('  11:59:00    NO_DATA → ALERT   value 2346 > 2000');
    expect(monitorHistoryRow({ ...change, previousState: null, state: 'NO_DATA', value: null }, 80, NOW).trimEnd()).toBe(
      '  11:59:00    new → NO_DATA     value – > 2000',
    );
    for (const width of [40, 80]) expect(displayWidth(monitorHistoryRow(change, width, NOW))).toBe(width);
  });
});
