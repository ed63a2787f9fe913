/** The pure parts of a time chart: its x range, its tick labels, its legend and when to mark points. */

/**
 * The x scale in seconds (uPlot's unit) from the first point less half a step to the last plus
 * half a step, so an edge bar is whole and a single point sits in the middle. uPlot's own range
 * for a single point adds 86,400 / 1e-3 seconds (its day in milliseconds read as seconds), an
 * axis running three years on from one day of data.
 */
export function timeRange(timesMs: readonly number[], stepMs: number): [number, number] | null {
  if (!timesMs.length) return null;
  const first = Math.min(...timesMs);
  const last = Math.max(...timesMs);
  return [(first - stepMs / 2) / 1000, (last + stepMs / 2) / 1000];
}

/** The decimals that tell apart ticks `step` apart: none from 1 up, one more per tenth below. */
function decimalsFor(step: number): number {
  if (!(step > 0) || step >= 1) return 0;
  return Math.min(12, Math.ceil(-Math.log10(step) - 1e-9));
}

/** The smallest gap between neighbouring ticks (uPlot's ticks are evenly spaced; 0 for one tick). */
function tickStep(ticks: readonly number[]): number {
  let step = Infinity;
  for (let i = 1; i < ticks.length; i++) step = Math.min(step, Math.abs(ticks[i]! - ticks[i - 1]!));
  return Number.isFinite(step) ? step : 0;
}

/** Cost axis labels as US dollars, with as many decimals as tell the ticks apart (never "0, 0, 0"). */
export function costTicks(ticks: readonly number[]): string[] {
  const step = tickStep(ticks);
  const single = ticks.length === 1 && ticks[0] ? Math.abs(ticks[0]) / 10 : 0;
  const decimals = Math.max(2, decimalsFor(step || single));
  return ticks.map((t) => (t === 0 ? '$0' : `${t < 0 ? '-' : ''}$${Math.abs(t).toFixed(decimals)}`));
}

/** Count axis labels: whole numbers grouped by thousands, decimals only where the ticks need them. */
export function countTicks(ticks: readonly number[]): string[] {
  const decimals = decimalsFor(tickStep(ticks));
  return ticks.map((t) => t.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }));
}

/**
 * A legend's value: empty while no point is hovered (uPlot writes "--" there), else the
 * hovered point's value in the chart's own format; a gap in the series is "–".
 */
export function legendValue(format: (v: number) => string): (value: number | null | undefined, index: number | null | undefined) => string {
  return (value, index) => (index === null || index === undefined ? '' : value === null || value === undefined ? '–' : format(value));
}

/**
 * Whether to mark a series' points: always when it has at most one value (a line needs two,
 * so a lone value would draw nothing), else when they are at least `spacePx` apart (uPlot's rule).
 */
export function showPoints(
  values: readonly (number | null | undefined)[],
  visiblePoints: number,
  widthPx: number,
  spacePx: number,
): boolean {
  let present = 0;
  for (const v of values) if (v !== null && v !== undefined && ++present > 1) break;
  if (present <= 1) return true;
  return visiblePoints <= 1 || widthPx / (visiblePoints - 1) >= spacePx;
}

/**
 * The y range when every value is zero or missing: `empty`, the unit's own (uPlot's 0–100
 * read as "$100.00" on a cost axis of nothing spent); null when there is something to range.
 */
export function flatRange(min: number | null, max: number | null, empty: readonly [number, number]): [number, number] | null {
  return (min ?? 0) === 0 && (max ?? 0) === 0 ? [empty[0], empty[1]] : null;
}
