/** The span tree of one trace as rows of a timing waterfall. Pure: the unit tests run it in node. */

export interface WaterfallSpan {
  id: string;
  parentId: string | null;
  startTime: string | null;
  endTime: string | null;
}

export interface WaterfallRow<S extends WaterfallSpan> {
  span: S;
  depth: number;
  /** Milliseconds from the trace's first start. */
  offsetMs: number;
  /** Null while the span has no end yet. */
  durationMs: number | null;
  /** Where its bar starts and how wide it is, in percent of the trace's extent. */
  leftPct: number;
  widthPct: number;
}

const ms = (iso: string | null): number | null => (iso ? Date.parse(iso) : null);

/**
 * Depth-first rows, children in start order. A span whose parent is not in the trace (not
 * arrived yet, or deleted) is shown as a root rather than dropped; a parent cycle cannot hide
 * spans, since every span is visited once.
 */
export function buildWaterfall<S extends WaterfallSpan>(spans: readonly S[]): WaterfallRow<S>[] {
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string | null, S[]>();
  for (const span of spans) {
    const parent = span.parentId && ids.has(span.parentId) && span.parentId !== span.id ? span.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(span);
    children.set(parent, list);
  }
  const starts = spans.map((s) => ms(s.startTime)).filter((t): t is number => t !== null);
  const ends = spans.map((s) => ms(s.endTime) ?? ms(s.startTime)).filter((t): t is number => t !== null);
  const origin = starts.length ? Math.min(...starts) : 0;
  const extent = Math.max(1, (ends.length ? Math.max(...ends) : origin) - origin);
  const byStart = (a: S, b: S) => (ms(a.startTime) ?? 0) - (ms(b.startTime) ?? 0) || a.id.localeCompare(b.id);

  const rows: WaterfallRow<S>[] = [];
  const seen = new Set<string>();
  const visit = (span: S, depth: number) => {
    if (seen.has(span.id)) return;
    seen.add(span.id);
    const start = ms(span.startTime) ?? origin;
    const end = ms(span.endTime);
    const offsetMs = start - origin;
    const durationMs = end === null ? null : Math.max(0, end - start);
    rows.push({
      span,
      depth,
      offsetMs,
      durationMs,
      leftPct: (offsetMs / extent) * 100,
      widthPct: Math.max(0.5, ((durationMs ?? 0) / extent) * 100),
    });
    for (const child of (children.get(span.id) ?? []).sort(byStart)) visit(child, depth + 1);
  };
  for (const root of (children.get(null) ?? []).sort(byStart)) visit(root, 0);
  // Spans caught in a parent cycle have no root above them: show them at the top level.
  for (const span of [...spans].sort(byStart)) visit(span, 0);
  return rows;
}
