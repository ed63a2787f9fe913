import { conversationLines } from './conversation-lines';
import { formatCost, formatCount, formatDuration, formatTime } from './format';
import type { GroupKind, GroupSummary, ScoreSummary, TraceSummary } from './spanlog-rpc';
import { fit, valueLines } from './text';

/**
 * The lines of the sessions and users screens, `width` columns wide: the marker column ("›"
 * selected), a space, fixed columns, the id taking what is left.
 */

const groupColumns = (width: number) => {
  const fixed = { time: 11, traces: 6, duration: 8, tokens: 6, cost: 8 };
  const used = 2 + Object.values(fixed).reduce((a, b) => a + b, 0) + Object.keys(fixed).length;
  return { ...fixed, id: Math.max(8, width - used) };
};

const line = (marker: string, cells: string[], width: number) => fit(`${fit(marker, 1)} ${cells.join(' ')}`, width);

export function groupHeaderRow(kind: GroupKind, width: number): string {
  const c = groupColumns(width);
  return line(
    ' ',
    [
      fit('LAST', c.time),
      fit(kind === 'session' ? 'SESSION' : 'USER', c.id),
      fit('TRACES', c.traces, 'right'),
      fit(kind === 'session' ? 'DURATION' : 'SESSIONS', c.duration, 'right'),
      fit('TOKENS', c.tokens, 'right'),
      fit('COST', c.cost, 'right'),
    ],
    width,
  );
}

export function groupRow(kind: GroupKind, g: GroupSummary, selected: boolean, width: number, now: Date): string {
  const c = groupColumns(width);
  return line(
    selected ? '›' : ' ',
    [
      fit(formatTime(g.lastTraceAt, now), c.time),
      fit(g.id, c.id),
      fit(formatCount(g.traceCount), c.traces, 'right'),
      fit(kind === 'session' ? formatDuration(g.durationMs) : formatCount(g.sessionCount ?? 0), c.duration, 'right'),
      fit(formatCount(g.totalTokens), c.tokens, 'right'),
      fit(formatCost(g.totalCost), c.cost, 'right'),
    ],
    width,
  );
}

export const scoreSummaryText = (scores: ScoreSummary[]): string =>
  scores.map((s) => `${s.name}=${s.value === null ? '–' : Number(s.value.toPrecision(3))} (${s.count})`).join(' ');

/** A session's or user's totals in one line. */
export function groupTotalsLine(kind: GroupKind, g: GroupSummary, now: Date): string {
  const parts = [
    `${formatCount(g.traceCount)} traces`,
    kind === 'user' ? `${formatCount(g.sessionCount ?? 0)} sessions` : `lasting ${formatDuration(g.durationMs)}`,
    `${formatCount(g.totalTokens)} tokens`,
    formatCost(g.totalCost),
    `last ${formatTime(g.lastTraceAt, now)}`,
  ];
  const scores = scoreSummaryText(g.scores);
  return [...parts, ...(scores ? [scores] : []), ...(g.userIds?.length ? [`users ${g.userIds.join(', ')}`] : [])].join(' · ');
}

/** A trace of a session read as turns: its input's, then its output's (as text when no message format is recognized). */
export function traceTurnLines(t: TraceSummary): string[] {
  const side = (value: unknown, which: 'input' | 'output') =>
    value === null || value === undefined
      ? []
      : (conversationLines(value, which) ?? [`${which}:`, ...valueLines(value).map((l) => `  ${l}`)]);
  return [...side(t.input, 'input'), ...side(t.output, 'output')];
}
