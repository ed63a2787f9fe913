import { groupHeaderRow, groupRow, groupTotalsLine, traceTurnLines } from './group-rows';
import type { GroupSummary, TraceSummary } from './spanlog-rpc';
import { displayWidth } from './text';

const now = new Date('2026-03-01T12:00:00Z');
const session: GroupSummary = {
  id: 'chat-42',
  firstTraceAt: '2026-03-01T10:00:00Z',
  lastTraceAt: '2026-03-01T10:02:00Z',
  traceCount: 3,
  spanCount: 3,
  durationMs: 122_000,
  totalTokens: 360,
  totalCost: 0.03,
  scores: [{ name: 'helpful', source: 'API', value: 0.75, count: 2 }],
  userIds: ['ada'],
};

describe('group rows', () => {
  it('fills exactly the width, with the session’s totals in their columns', () => {
    for (const width of [40, 80, 120]) {
      expect(displayWidth(groupHeaderRow('session', width))).toBe(width);
      expect(displayWidth(groupRow('session', session, true, width, now))).toBe(width);
    }
    const row = groupRow('session', session, true, 80, now);
    expect(row.startsWith('› 10:02:00')).toBe(true);
    expect(row).toMatch(/chat-42 +3 +2m 02s +360 +\$0\.03$/);
    expect(groupRow('user', { ...session, id: 'ada', sessionCount: 2 }, false, 80, now)).toMatch(/ada +3 +2 +360 +\$0\.03$/);
  });

  it('sums a group up in one line: traces, duration or sessions, tokens, cost, scores, users', () => {
    expect(groupTotalsLine('session', session, now)).toBe(
      '3 traces · lasting 2m 02s · 360 tokens · $0.03 · last 10:02:00 · helpful=0.75 (2) · users ada',
    );
    expect(groupTotalsLine('user', { ...session, userIds: undefined, sessionCount: 1, scores: [] }, now)).toBe(
      '3 traces · 1 sessions · 360 tokens · $0.03 · last 10:02:00',
    );
  });

  it('reads a trace’s input and output as turns, and anything else as its text', () => {
    const trace = {
      input: [{ role: 'user', content: 'Where is parcel 42?' }],
      output: { role: 'assistant', content: 'In Lyon.' },
    } as unknown as TraceSummary;
    expect(traceTurnLines(trace)).toEqual(['user:', '  Where is parcel 42?', 'assistant:', '  In Lyon.']);
    expect(traceTurnLines({ input: 'plain question', output: null } as unknown as TraceSummary)).toEqual(['input:', '  plain question']);
  });
});
