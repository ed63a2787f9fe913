/** How the dashboard writes numbers, times and previews; one place for each. */

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return '–';
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(4)}`;
}

/**
 * A model's cost where some of its calls had usage no price covered: "no price" when none was
 * priced (not "$0", which would read as free), else the priced part marked as a lower bound.
 */
export function formatModelCost(m: { costUsd: number; calls: number; unpricedCalls: number }): string {
  if (m.unpricedCalls === 0) return formatCost(m.costUsd);
  if (m.unpricedCalls >= m.calls && m.costUsd === 0) return 'no price';
  return `≥ ${formatCost(m.costUsd)}`;
}

export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : n.toLocaleString('en-US');
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  return new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/** One line of a JSON value for a table cell: strings as they are, the rest as compact JSON. */
export function preview(value: unknown, max = 80): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function formatScore(value: number | null): string {
  return value === null ? '–' : Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/** A count short enough for a tree row: 950, 1.2k, 34k, 1.5M. */
export function formatCompactCount(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  const short = (v: number, unit: string) => `${v < 10 ? Number(v.toFixed(1)) : Math.round(v)}${unit}`;
  if (Math.abs(n) < 1000) return String(Math.round(n));
  if (Math.abs(n) < 999_500) return short(n / 1000, 'k');
  return short(n / 1_000_000, 'M');
}
