import type { Options } from 'cli-progress';

/**
 * Seconds as the bar shows them: `45s`, `2m05s`, `1h02m`. cli-progress hands over its ETA as
 * the strings 'NULL' or 'INF' while it cannot estimate one (no rate yet, or no progress), and
 * its own formatter kept the last two characters of those, so the bar ended in "LLs left".
 */
export function formatSeconds(t: unknown): string {
  const seconds = typeof t === 'string' && /^\d+(\.\d+)?$/.test(t) ? Number(t) : t;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return 'unknown';
  const s = Math.round(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s >= 3600) return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  return `${s}s`;
}

/** The rebuild bar's look: its line, and the time left (ETA) written by formatSeconds. */
export const REBUILD_BAR_FORMAT: Pick<Options, 'format' | 'formatTime'> = {
  format: 'rebuild {projection} [{bar}] {percentage}% | {phase} {value}/{total} | {speed}/s | time left {eta_formatted}',
  formatTime: (t) => formatSeconds(t),
};
