/** ISO 8601 with a `Z` or an offset, date-only allowed; anything else is not a timestamp. */
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const MIN_MS = Date.UTC(1970, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Epoch milliseconds of an ISO 8601 timestamp (any offset, converted to UTC), or null if invalid. */
export function parseTimestamp(value: unknown): number | null {
  if (typeof value !== 'string' || !ISO.test(value)) return null;
  // Without an offset a date-time is UTC, not the server's local time.
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value) || value.length === 10;
  const ms = Date.parse(hasZone ? value : `${value}Z`);
  if (Number.isNaN(ms) || ms < MIN_MS || ms > MAX_MS) return null;
  return ms;
}

/** Fixed-width UTC ISO string, so that timestamps compare correctly as text. */
export const toIso = (ms: number): string => new Date(ms).toISOString();
