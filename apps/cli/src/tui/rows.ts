import { conversationLines } from './conversation-lines';
import { NONE, durationMs, formatCost, formatCount, formatDuration, formatTime } from './format';
import type { TreeRow } from './span-tree';
import type { Monitor, MonitorHistoryEntry, Score, Span, Trace, TraceSummary } from './spanlog-rpc';
import { fit, oneLine, valueLines, valuePreview } from './text';

/**
 * The text of the trace list's and the trace view's lines for a terminal `width` columns
 * wide. A row is the marker column ("›" selected, "!" an error, else blank), a space, then
 * columns of fixed widths with the name taking what is left; every line is exactly `width`.
 */

const MARKER = 2;

const columnWidths = <T extends Record<string, number>>(width: number, fixed: T, minName: number): T & { name: number } => {
  const used = MARKER + Object.values(fixed).reduce((a, b) => a + b, 0) + Object.keys(fixed).length;
  return { ...fixed, name: Math.max(minName, width - used) };
};

const traceColumns = (width: number) => columnWidths(width, { time: 8, user: 12, spans: 5, latency: 8, tokens: 6, cost: 8 }, 8);

const spanColumns = (width: number) => columnWidths(width, { type: 10, duration: 8, model: 14, tokens: 11, cost: 8 }, 10);

/** The whole line, cut to the width (a terminal too narrow for the fixed columns cuts them). */
const line = (marker: string, cells: string[], width: number) => fit(`${fit(marker, 1)} ${cells.join(' ')}`, width);

export function traceHeaderRow(width: number): string {
  const c = traceColumns(width);
  return line(
    ' ',
    [
      fit('TIME', c.time),
      fit('NAME', c.name),
      fit('USER', c.user),
      fit('SPANS', c.spans, 'right'),
      fit('LATENCY', c.latency, 'right'),
      fit('TOKENS', c.tokens, 'right'),
      fit('COST', c.cost, 'right'),
    ],
    width,
  );
}

export function traceRow(t: TraceSummary, selected: boolean, width: number, now: Date): string {
  const c = traceColumns(width);
  return line(
    selected ? '›' : ' ',
    [
      fit(formatTime(t.timestamp, now), c.time),
      fit(t.name ?? '(unnamed)', c.name),
      fit(t.userId ?? '', c.user),
      fit(String(t.spanCount), c.spans, 'right'),
      fit(formatDuration(t.latencyMs), c.latency, 'right'),
      fit(formatCount(t.totalTokens), c.tokens, 'right'),
      fit(formatCost(t.totalCost), c.cost, 'right'),
    ],
    width,
  );
}

/** Prompt → completion tokens, or nothing for a span that used none. */
export const spanTokens = (s: Span): string =>
  s.promptTokens === null && s.completionTokens === null
    ? ''
    : `${formatCount(s.promptTokens ?? 0)}→${formatCount(s.completionTokens ?? 0)}`;

export const scoreText = (scores: Score[]): string =>
  scores.map((s) => `${s.name}=${typeof s.value === 'number' ? Number(s.value.toPrecision(3)) : String(s.value)}`).join(' ');

export function spanHeaderRow(width: number): string {
  const c = spanColumns(width);
  return line(
    ' ',
    [
      fit('SPAN', c.name),
      fit('TYPE', c.type),
      fit('DURATION', c.duration, 'right'),
      fit('MODEL', c.model),
      fit('TOKENS', c.tokens, 'right'),
      fit('COST', c.cost, 'right'),
    ],
    width,
  );
}

/** A span in the tree; an error is marked in the text too, since colour may not reach the user (NO_COLOR, a screen reader). */
export function spanRow(row: TreeRow<Span>, selected: boolean, width: number): string {
  const c = spanColumns(width);
  const s = row.span;
  return line(
    selected ? '›' : s.level === 'ERROR' ? '!' : ' ',
    [
      fit(`${row.prefix}${s.name ?? ''}`, c.name),
      fit(s.type ?? '', c.type),
      fit(formatDuration(row.durationMs), c.duration, 'right'),
      fit(s.model ?? '', c.model),
      fit(spanTokens(s), c.tokens, 'right'),
      fit(formatCost(s.cost), c.cost, 'right'),
    ],
    width,
  );
}

/** The two lines over a trace's tree: what it is and what it cost, then who and how it was judged. */
export function traceHeaderLines(trace: Trace, now: Date): [string, string] {
  const traceScores = trace.scores.filter((s) => s.spanId === null);
  return [
    `${trace.name ?? '(unnamed)'} · ${formatTime(trace.timestamp, now)} · ${formatDuration(trace.latencyMs)} · ${formatCount(trace.totalTokens)} tokens · ${formatCost(trace.totalCost)} · ${trace.spanCount} spans`,
    [
      `id ${trace.id}`,
      trace.userId ? `user ${trace.userId}` : '',
      trace.tags?.length ? `tags ${trace.tags.join(',')}` : '',
      traceScores.length ? `scores ${scoreText(traceScores)}` : '',
    ]
      .filter(Boolean)
      .join(' · '),
  ];
}

/** What a span is: name, type (with its operation) and model, timing, tokens and cost, its level and scores. */
function spanSummaryLines(span: Span, trace: Trace): string[] {
  const scores = trace.scores.filter((s) => s.spanId === span.id);
  return [
    `${span.name ?? '(unnamed)'} · ${span.type ?? ''}${span.operation ? ` ${span.operation}` : ''}${span.model ? ` · ${span.model}` : ''}`,
    `start ${span.startTime ?? NONE} · ${formatDuration(durationMs(span.startTime, span.endTime))} · tokens ${spanTokens(span) || '–'} · cost ${formatCost(span.cost)}`,
    ...(span.level && span.level !== 'DEFAULT'
      ? [`level ${span.level}${span.statusMessage ? `: ${oneLine(span.statusMessage)}` : ''}`]
      : []),
    ...(scores.length ? [`scores ${scoreText(scores)}`] : []),
  ];
}

/** The panel under the tree: the selected span, with its input and output on a line each. */
export function spanPreviewLines(span: Span, trace: Trace): string[] {
  return [
    ...spanSummaryLines(span, trace),
    `input  ${valuePreview(span.input) || '(none)'}`,
    `output ${valuePreview(span.output) || '(none)'}`,
    'Enter: the whole input and output',
  ];
}

/** One span's details: what it is, then its whole input and output, line by line (messages as turns). */
export function spanDetailLines(span: Span, trace: Trace, width: number): string[] {
  const section = (title: string) => `── ${title} ${'─'.repeat(Math.max(0, width - title.length - 4))}`;
  const input = conversationLines(span.input, 'input') ?? valueLines(span.input);
  const output = conversationLines(span.output, 'output') ?? valueLines(span.output);
  return [
    ...spanSummaryLines(span, trace),
    section('input'),
    ...(input.length ? input : ['(none)']),
    section('output'),
    ...(output.length ? output : ['(none)']),
  ];
}

/** A window in its largest whole unit: "5m", "1h", "7d". */
export function windowText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** What a monitor watches: "latency_p95 of gpt-4o over 1h", "score_pass_rate(helpful) over 5m". */
export function monitorMetricText(m: Monitor): string {
  const filter = [m.filter.model, m.filter.spanType, m.filter.operation, m.filter.traceName].filter((v) => v !== undefined).join('/');
  return `${m.metric}${m.scoreName ? `(${m.scoreName})` : ''}${filter ? ` of ${filter}` : ''} over ${windowText(m.windowSeconds)}`;
}

/** The state shown: the evaluated one, PENDING before the first evaluation, OFF when disabled. */
export const monitorStateText = (m: Monitor): string => (!m.enabled ? 'OFF' : (m.state ?? 'PENDING'));

const monitorColumns = (width: number) => columnWidths(width, { state: 7, metric: 24, value: 9, threshold: 10, evaluated: 11 }, 10);

const numberText = (n: number | null) => (n === null ? '–' : String(Number(n.toPrecision(4))));

export function monitorHeaderRow(width: number): string {
  const c = monitorColumns(width);
  return line(
    ' ',
    [
      fit('STATE', c.state),
      fit('MONITOR', c.name),
      fit('WATCHES', c.metric),
      fit('VALUE', c.value, 'right'),
      fit('THRESHOLD', c.threshold, 'right'),
      fit('CHECKED', c.evaluated),
    ],
    width,
  );
}

export function monitorRow(m: Monitor, selected: boolean, width: number, now: Date): string {
  const c = monitorColumns(width);
  return line(
    selected ? '›' : m.state === 'ALERT' && m.enabled ? '!' : ' ',
    [
      fit(monitorStateText(m), c.state),
      fit(m.name, c.name),
      fit(monitorMetricText(m), c.metric),
      fit(numberText(m.value), c.value, 'right'),
      fit(`${m.comparison} ${numberText(m.threshold)}`, c.threshold, 'right'),
      fit(formatTime(m.evaluatedAt, now), c.evaluated),
    ],
    width,
  );
}

/** One change of a monitor's state: "11:59:00 NO_DATA → ALERT   value 2346 > 2000". */
export function monitorHistoryRow(h: MonitorHistoryEntry, width: number, now: Date): string {
  return fit(
    `  ${fit(formatTime(h.at, now), 11)} ${fit(`${h.previousState ?? 'new'} → ${h.state}`, 17)} value ${numberText(h.value)} ${h.comparison} ${numberText(h.threshold)}`,
    width,
  );
}
