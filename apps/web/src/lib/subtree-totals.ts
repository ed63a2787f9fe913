/** Tokens and cost of each span together with every span below it in the tree. Pure: the unit tests run it in node. */

export interface UsageSpan {
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
  cost: number | null;
}

/** Null where no span of the subtree carries the figure, as the trace's own totals are. */
export interface SubtreeTotals {
  tokens: number | null;
  cost: number | null;
}

/** A span's tokens as the server counts them for the trace's total: the total, else prompt plus completion, else whichever is known. */
export function spanTokens(span: UsageSpan): number | null {
  if (span.totalTokens !== null) return span.totalTokens;
  if (span.promptTokens !== null && span.completionTokens !== null) return span.promptTokens + span.completionTokens;
  return span.promptTokens ?? span.completionTokens;
}

const add = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : a + b);

/**
 * Subtree totals for rows in depth-first pre-order (as `buildWaterfall` gives them), one per
 * row at the same index. A subtree is the row and the rows after it that are deeper, so one
 * backwards pass with a stack of finished subtrees sums them: no recursion, since a trace can
 * nest 100,000 spans. Only the rows given are counted: while pages of a trace are still
 * unloaded, these are totals of the loaded spans.
 */
export function subtreeTotals(rows: readonly { span: UsageSpan; depth: number }[]): SubtreeTotals[] {
  const totals = new Array<SubtreeTotals>(rows.length);
  const done: { depth: number; totals: SubtreeTotals }[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const { span, depth } = rows[i];
    let tokens = spanTokens(span);
    let cost = span.cost;
    while (done.length && done[done.length - 1].depth > depth) {
      const child = (done.pop() as { totals: SubtreeTotals }).totals;
      tokens = add(tokens, child.tokens);
      cost = add(cost, child.cost);
    }
    totals[i] = { tokens, cost };
    done.push({ depth, totals: totals[i] });
  }
  return totals;
}
