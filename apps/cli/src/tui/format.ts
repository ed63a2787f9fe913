/** How the TUI writes durations, money, token counts and times; "–" stands for no value. */

export const NONE = '–';

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return NONE;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)}m ${String(totalSeconds % 60).padStart(2, '0')}s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes < 48 * 60) return `${Math.floor(totalMinutes / 60)}h ${String(totalMinutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(totalMinutes / 1440)}d ${Math.floor((totalMinutes % 1440) / 60)}h`;
}

/** US dollars: cents from a dollar up, four significant digits below (LLM calls cost fractions of a cent). */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return NONE;
  if (usd === 0) return '$0';
  const sign = usd < 0 ? '-' : '';
  const abs = Math.abs(usd);
  if (abs >= 1) return `${sign}$${abs.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (abs < 0.0001) return `${sign}<$0.0001`;
  return `${sign}$${Number(abs.toPrecision(abs < 0.01 ? 2 : 3))}`;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return NONE;
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 1_000_000) return `${trimZero((n / 1000).toFixed(abs < 10_000 ? 1 : 0))}k`;
  if (abs < 1_000_000_000) return `${trimZero((n / 1_000_000).toFixed(abs < 10_000_000 ? 1 : 0))}M`;
  return `${trimZero((n / 1_000_000_000).toFixed(1))}G`;
}

const trimZero = (text: string) => text.replace(/\.0$/, '');

/** A timestamp in UTC, as the API keeps them: the time alone when it is today, else the date too. */
export function formatTime(iso: string | null | undefined, now: Date): string {
  if (!iso) return NONE;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return NONE;
  const text = at.toISOString();
  return text.slice(0, 10) === now.toISOString().slice(0, 10) ? text.slice(11, 19) : `${text.slice(5, 10)} ${text.slice(11, 16)}`;
}

/** Milliseconds between two ISO timestamps, or null when either is missing. */
export function durationMs(start: string | null | undefined, end: string | null | undefined): number | null {
  if (!start || !end) return null;
  const ms = Date.parse(end) - Date.parse(start);
  return Number.isFinite(ms) ? Math.max(0, ms) : null;
}

/** `used of limit`, with the share and a bar: "1,234 of 50,000 (2%) [■□□□□□□□□□]". */
export function formatQuota(used: number, limit: number | null, barWidth = 20): string {
  if (limit === null) return `${used.toLocaleString('en-US')} (unlimited)`;
  const share = limit > 0 ? used / limit : 1;
  const filled = Math.min(barWidth, Math.round(share * barWidth));
  return `${used.toLocaleString('en-US')} of ${limit.toLocaleString('en-US')} (${Math.round(share * 100)}%) [${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}]`;
}
