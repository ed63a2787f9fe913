import { TELEMETRY_RANGES } from './limits';

/**
 * ISO 8601 as clients send it: a calendar date, optionally a time of minutes, seconds and a
 * `.` fraction, and a `Z` or `±hh[:]mm` offset. Week dates, ordinal dates, hour-only times
 * and `,` fractions are refused rather than half-understood.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

/**
 * Epoch milliseconds of an ISO 8601 timestamp (any offset, converted to UTC; none is UTC), or
 * null if it is not one or lies outside TELEMETRY_RANGES.timestampMs. Every field is checked
 * against the calendar: `Date.parse` would move 2024-02-30 to March 1st and accept 24:00.
 * Digits past milliseconds are truncated, as `Date.parse` does.
 */
export function parseTimestamp(value: unknown): number | null {
  const m = typeof value === 'string' ? ISO.exec(value) : null;
  if (!m) return null;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [m[1], m[2], m[3], m[4], m[5], m[6], m[9], m[10]].map(
    (part) => Number(part ?? 0),
  );
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  // A day or month the calendar does not have rolls over into the next: refuse it instead.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  date.setUTCHours(hour, minute, second, Number((m[7] ?? '').slice(0, 3).padEnd(3, '0')));
  const offsetMs = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const ms = date.getTime() - offsetMs;
  const { min, max } = TELEMETRY_RANGES.timestampMs;
  return ms >= min && ms <= max ? ms : null;
}

/** Fixed-width UTC ISO string, so that timestamps compare correctly as text. */
export const toIso = (ms: number): string => new Date(ms).toISOString();

/** What `parseTimestamp` accepts, for messages that name a field: `startTime: must be ${TIMESTAMP_RULE}`. */
export const TIMESTAMP_RULE = `an ISO 8601 timestamp from ${toIso(TELEMETRY_RANGES.timestampMs.min)} to ${toIso(TELEMETRY_RANGES.timestampMs.max)}`;
