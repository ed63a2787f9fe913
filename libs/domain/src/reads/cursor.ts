import { validationError } from '../errors';
import { isUuidShaped } from '../ids';

/**
 * Page cursors: the last row's position in the page's order (its order columns' values), as
 * opaque base64url JSON. A cursor that this endpoint did not write, tampered or cut, is a 400
 * naming the parameter that carried it, never a failed statement: each part is checked by its
 * own rule before any query sees it.
 */
export type CursorValue = string | number | null;

/** The rule of one part of a cursor: whether a decoded value is one this order writes. */
export type CursorPart<T extends CursorValue> = (value: unknown) => value is T;

export const encodeCursor = (position: readonly CursorValue[]): string => Buffer.from(JSON.stringify(position)).toString('base64url');

/** The position a cursor names, each part checked by its rule; `field` names the parameter in the error. */
export function decodeCursor<T extends CursorValue[]>(
  raw: string,
  parts: { readonly [K in keyof T]: CursorPart<T[K]> },
  field = 'cursor',
): T {
  const rules = parts as readonly CursorPart<CursorValue>[];
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === rules.length && rules.every((ok, i) => ok(value[i]))) return value as T;
  } catch {
    // the one error below
  }
  throw validationError(`${field}: not a cursor returned by this endpoint`);
}

/**
 * A page of at most `limit` rows from a query that fetched `limit + 1`, and the cursor after
 * its last row when more follow.
 */
export function keysetPage<R>(
  rows: readonly R[],
  limit: number,
  position: (row: R) => readonly CursorValue[],
): { data: R[]; nextCursor: string | null } {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null };
}

/** `timestamptz::text` as Postgres writes it: `2026-01-01 00:00:04.123456+00`. */
const PG_TIMESTAMPTZ = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2})(?::(\d{2}))?)?$/;
/** Postgres refuses a zone displacement beyond ±15:59:59. */
const MAX_OFFSET_HOURS = 15;

/**
 * A time as Postgres wrote it as text, which it reads back as the same instant. Not the
 * ingestion range (TELEMETRY_RANGES): a cursor may stand on a row stored before that range
 * was checked.
 */
export function isPgTimestamptzText(value: unknown): value is string {
  const m = typeof value === 'string' ? PG_TIMESTAMPTZ.exec(value) : null;
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes, offsetSeconds] = m.slice(1).map((part) => Number(part ?? 0));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const isCalendarDay = year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return (
    isCalendarDay &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= MAX_OFFSET_HOURS &&
    offsetMinutes <= 59 &&
    offsetSeconds <= 59
  );
}

/** Fixed-width UTC ISO with microseconds, as `to_char` writes a cursor's time. */
const MICRO_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A microsecond UTC ISO instant Postgres reads back (it has no year 0): a tampered day or year would fail the statement. */
export const isMicroIsoText = (value: unknown): value is string =>
  typeof value === 'string' &&
  MICRO_ISO.test(value) &&
  !value.startsWith('0000') &&
  !Number.isNaN(Date.parse(value)) &&
  new Date(Date.parse(value)).toISOString().slice(0, 19) === value.slice(0, 19);

/** A time that may be null (sorted last), else as `isPgTimestamptzText`. */
export const isPgTimestamptzTextOrNull = (value: unknown): value is string | null => value === null || isPgTimestamptzText(value);

/** A row id (any 8-4-4-4-12 hex string). */
export const isRowId: CursorPart<string> = isUuidShaped;

/** A Postgres bigint id (1 up to 18 digits), kept as text so that no digit is lost. */
export const isBigintId = (value: unknown): value is string => typeof value === 'string' && /^[1-9][0-9]{0,17}$/.test(value);

/** A positive Postgres int (1 to 2^31 − 1). */
export const isPositiveInt = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 2_147_483_647;

/** A position in an order by (time as Postgres wrote it, id): the trace list, the audit log. */
export const TIME_ID_CURSOR = [isPgTimestamptzText, isRowId] as const;
/** A position in an order by (time, null sorted last; id): a trace's spans and scores. */
export const NULLABLE_TIME_ID_CURSOR = [isPgTimestamptzTextOrNull, isRowId] as const;
