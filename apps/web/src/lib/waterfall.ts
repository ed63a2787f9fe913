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

export interface WaterfallScale {
  /** The trace's extent in milliseconds (its latency), so that bars keep their place while more pages of spans load. */
  extentMs?: number | null;
}

/**
 * Depth-first rows, children in start order. A span whose parent is not in the trace (not
 * arrived yet, not loaded yet, or deleted) is shown as a root rather than dropped; a parent
 * cycle cannot hide spans, since every span is visited once. Loops and an explicit stack, no
 * recursion nor spread arguments: a trace may hold 100,000 spans, nested thousands deep.
 */
export function buildWaterfall<S extends WaterfallSpan>(spans: readonly S[], scale: WaterfallScale = {}): WaterfallRow<S>[] {
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string | null, S[]>();
  let origin = Infinity;
  let last = -Infinity;
  for (const span of spans) {
    const parent = span.parentId && ids.has(span.parentId) && span.parentId !== span.id ? span.parentId : null;
    const list = children.get(parent);
    if (list) list.push(span);
    else children.set(parent, [span]);
    const start = ms(span.startTime);
    const end = ms(span.endTime) ?? start;
    if (start !== null) origin = Math.min(origin, start);
    if (end !== null) last = Math.max(last, end);
  }
  if (!Number.isFinite(origin)) origin = 0;
  const extent = Math.max(1, scale.extentMs ?? (Number.isFinite(last) ? last - origin : 0));
  const byStart = (a: S, b: S) => (ms(a.startTime) ?? 0) - (ms(b.startTime) ?? 0) || a.id.localeCompare(b.id);
  for (const list of children.values()) list.sort(byStart);

  const rows: WaterfallRow<S>[] = [];
  const seen = new Set<string>();
  const visit = (root: S) => {
    const stack: { span: S; depth: number }[] = [{ span: root, depth: 0 }];
    while (stack.length) {
      const { span, depth } = stack.pop() as { span: S; depth: number };
      if (seen.has(span.id)) continue;
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
        leftPct: Math.min(100, (offsetMs / extent) * 100),
        widthPct: Math.max(0.5, Math.min(100, ((durationMs ?? 0) / extent) * 100)),
      });
      const kids = children.get(span.id) ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i], depth: depth + 1 });
    }
  };
  for (const root of children.get(null) ?? []) visit(root);
  // Spans caught in a parent cycle have no root above them: show them at the top level.
  for (const span of [...spans].sort(byStart)) visit(span);
  return rows;
}
