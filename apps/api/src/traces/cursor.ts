import { DomainError } from '@app/domain';

/** Page position: the last row's timestamp (full precision, as Postgres text) and id. */
export type Cursor = [string, string];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** `timestamptz::text` as Postgres writes it: `2026-01-01 00:00:04.123456+00`. */
const PG_TIMESTAMPTZ = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2})(?::(\d{2}))?)?$/;
/** Postgres refuses a zone displacement beyond ±15:59:59. */
const MAX_OFFSET_HOURS = 15;

/**
 * Whether Postgres reads `text` back as the instant it wrote. Not the ingestion range
 * (TELEMETRY_RANGES): a cursor may stand on a row stored before that range was checked.
 */
function isPgTimestamptz(text: string): boolean {
  const m = PG_TIMESTAMPTZ.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes, offsetSeconds] = m.slice(1).map((part) => Number(part ?? 0));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const isCalendarDay = year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return isCalendarDay && hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= MAX_OFFSET_HOURS && offsetMinutes <= 59 && offsetSeconds <= 59;
}

export const encodeCursor = (c: Cursor): string => Buffer.from(JSON.stringify(c)).toString('base64url');

/** The position a cursor names; a cursor this endpoint did not write, tampered or cut, is a 400, never a failed statement. */
export function decodeCursor(raw: string): Cursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && isPgTimestamptz(value[0]) && typeof value[1] === 'string' && UUID.test(value[1])) {
      return [value[0], value[1]];
    }
  } catch {
    // fall through to the one error below
  }
  throw new DomainError('VALIDATION_ERROR', 'cursor: not a cursor returned by this endpoint');
}
