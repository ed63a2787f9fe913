import { durationMs } from './format';

/** The fields of a span (CONTRACT `GET /api/v1/traces/:id`) that place it in the tree. */
export interface TreeSpan {
  id: string;
  parentId: string | null;
  startTime: string | null;
  endTime: string | null;
}

/** NaN for a span without a start time (it sorts by id among the others). */
const startMs = (span: TreeSpan): number => (span.startTime === null ? NaN : Date.parse(span.startTime));

export interface TreeRow<S extends TreeSpan> {
  span: S;
  depth: number;
  /** The tree lines drawn before the name ("│ ├─"), at most `MAX_DRAWN_DEPTH` levels of them. */
  prefix: string;
  /** From the start of the earliest span. */
  offsetMs: number;
  durationMs: number | null;
}

/** Deeper levels are drawn as this many, after a "…", so a name keeps room in 80 columns. */
export const MAX_DRAWN_DEPTH = 8;

/**
 * The spans in depth-first order, children by start time then id. A span whose parent is not
 * in the trace (it may not have arrived yet) is shown as a root rather than hidden, and spans
 * caught in a parent cycle (bad client data) become roots where the cycle is entered, so every
 * span appears exactly once.
 */
export function spanTree<S extends TreeSpan>(spans: readonly S[]): TreeRow<S>[] {
  const byStart = [...spans].sort((a, b) => startMs(a) - startMs(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = new Set(byStart.map((s) => s.id));
  const children = new Map<string, S[]>();
  const roots: S[] = [];
  for (const span of byStart) {
    const parent = span.parentId;
    if (parent === null || parent === span.id || !ids.has(parent)) roots.push(span);
    else {
      const siblings = children.get(parent);
      if (siblings) siblings.push(span);
      else children.set(parent, [span]);
    }
  }
  // A loop, not Math.min(...starts): a trace's pages hold thousands of spans, past the arguments a call takes.
  let origin = Infinity;
  for (const span of byStart) if (span.startTime !== null) origin = Math.min(origin, startMs(span));
  if (!Number.isFinite(origin)) origin = 0;

  const rows: TreeRow<S>[] = [];
  const placed = new Set<string>();
  // An explicit stack, not recursion: a trace may nest thousands of levels deep.
  const walk = (root: S) => {
    const stack: { span: S; depth: number; lines: boolean[]; last: boolean }[] = [{ span: root, depth: 0, lines: [], last: true }];
    while (stack.length) {
      const { span, depth, lines, last } = stack.pop() as (typeof stack)[number];
      if (placed.has(span.id)) continue;
      placed.add(span.id);
      rows.push({
        span,
        depth,
        prefix: drawPrefix(lines, last, depth),
        offsetMs: Math.max(0, startMs(span) - origin) || 0,
        durationMs: durationMs(span.startTime, span.endTime),
      });
      const kids = (children.get(span.id) ?? []).filter((k) => !placed.has(k.id));
      const childLines = depth === 0 ? [] : [...lines, !last];
      for (let i = kids.length - 1; i >= 0; i--)
        stack.push({ span: kids[i], depth: depth + 1, lines: childLines, last: i === kids.length - 1 });
    }
  };
  for (const root of roots) walk(root);
  for (const span of byStart) if (!placed.has(span.id)) walk(span);
  return rows;
}

/** `lines[i]`: whether the ancestor at level i+1 has siblings still to come, so its line goes on. */
function drawPrefix(lines: boolean[], last: boolean, depth: number): string {
  if (depth === 0) return '';
  const shown = lines.slice(Math.max(0, lines.length - (MAX_DRAWN_DEPTH - 1)));
  const elided = lines.length > shown.length ? '…' : '';
  return `${elided}${shown.map((goesOn) => (goesOn ? '│ ' : '  ')).join('')}${last ? '└─' : '├─'}`;
}
