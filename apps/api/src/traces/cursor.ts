import { DomainError } from '@app/domain';

/** Page position: the last row's timestamp (full precision, as Postgres text) and id. */
export type Cursor = [string, string];
/** Position in a trace's spans or scores, ordered by a time that may be null (sorted last), then id. */
export type RowCursor = [string | null, string];

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

export const encodeCursor = (c: Cursor | RowCursor): string => Buffer.from(JSON.stringify(c)).toString('base64url');

function readCursor(raw: string, timeMayBeNull: boolean): RowCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2 || typeof value[1] !== 'string' || !UUID.test(value[1])) return null;
    const [time, id] = value as [unknown, string];
    if (typeof time === 'string' && isPgTimestamptz(time)) return [time, id];
    if (time === null && timeMayBeNull) return [null, id];
  } catch {
    // fall through: not a cursor
  }
  return null;
}

const notACursor = (field: string) => new DomainError('VALIDATION_ERROR', `${field}: not a cursor returned by this endpoint`);

/** The position a cursor names; a cursor this endpoint did not write, tampered or cut, is a 400, never a failed statement. */
export function decodeCursor(raw: string): Cursor {
  const cursor = readCursor(raw, false);
  if (!cursor || cursor[0] === null) throw notACursor('cursor');
  return [cursor[0], cursor[1]];
}

/** As decodeCursor, for a page of a trace's spans or scores; `field` is the parameter that carried it. */
export function decodeRowCursor(raw: string, field: string): RowCursor {
  const cursor = readCursor(raw, true);
  if (!cursor) throw notACursor(field);
  return cursor;
}
