import { DomainError } from '@app/domain';

/** Page position: the last row's timestamp (full precision, as Postgres text) and id. */
export type Cursor = [string, string];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** `timestamptz::text` as Postgres writes it: `2026-01-01 00:00:04.123456+00`. */
const PG_TIMESTAMPTZ = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?[+-]\d{2}(?::\d{2}){0,2}$/;

export const encodeCursor = (c: Cursor): string => Buffer.from(JSON.stringify(c)).toString('base64url');

export function decodeCursor(raw: string): Cursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && PG_TIMESTAMPTZ.test(value[0]) && typeof value[1] === 'string' && UUID.test(value[1])) {
      return [value[0], value[1]];
    }
  } catch {
    // fall through to the one error below
  }
  throw new DomainError('VALIDATION_ERROR', 'cursor: not a cursor returned by this endpoint');
}
