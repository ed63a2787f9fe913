import { validationError } from '../errors';
import { isStorableText, UNSTORABLE_TEXT } from '../json/sanitize';
import { isJsonObject } from '../json/types';
import { TRACE_QUERY_LIMIT } from '../limits';
import { decodeCursor, isMicroIsoText, isRowId } from '../reads/cursor';
import { Optional, type FieldRule, timestamp, validateDto } from '../validation';

/**
 * The queries of the session and user reads (`GET /api/v1/sessions`, `/sessions/{id}`,
 * `/users`, and the RPC's `traceSession.*` / `traceUser.*`), one rule per field for REST's
 * query text and the RPC's JSON alike.
 */

/** Filter text Postgres can compare: a NUL would fail the statement (BAD_INPUTS 5); a repeated query parameter arrives as an array. */
const filterText: FieldRule = {
  test: (v) => typeof v === 'string' && v.length <= 256 && isStorableText(v),
  message: `must be a string of at most 256 characters that ${UNSTORABLE_TEXT.replace('must', 'does')}`,
};

/** REST sends the page size as text, the RPC as a number: both read as one integer. */
const pageSize: FieldRule = {
  read: (v) => (typeof v === 'string' && /^[0-9]{1,4}$/.test(v) ? Number(v) : v),
  test: (v) => Number.isInteger(v) && (v as number) >= TRACE_QUERY_LIMIT.min && (v as number) <= TRACE_QUERY_LIMIT.max,
  message: `must be an integer from ${TRACE_QUERY_LIMIT.min} to ${TRACE_QUERY_LIMIT.max}`,
  schema: { type: 'integer', minimum: TRACE_QUERY_LIMIT.min, maximum: TRACE_QUERY_LIMIT.max },
};

const cursorText: FieldRule = { test: (v) => typeof v === 'string', message: 'must be a string', schema: { type: 'string' } };

export class PageFields {
  @Optional(pageSize) limit?: number;
  @Optional(cursorText) cursor?: string;
}

export class GroupFilterFields extends PageFields {
  /** Part of the session's or user's id, any case. */
  @Optional(filterText) id?: string;
  @Optional(filterText) environment?: string;
  @Optional(timestamp) fromTimestamp?: string;
  @Optional(timestamp) toTimestamp?: string;
}

export class SessionListFields extends GroupFilterFields {
  @Optional(filterText) userId?: string;
}

/** Page position of a session or user list: its last trace's time (microseconds, UTC ISO) and its id. */
export type GroupCursor = [string, string];
/** Page position of a session's traces: the last trace's time and id. */
export type TraceCursor = [string, string];

export interface GroupFilter {
  /** Part of the id, matched case-insensitively. */
  idContains?: string;
  environment?: string;
  /** ISO instants: groups with a trace in [from, to]. */
  from?: string;
  to?: string;
  /** Sessions only: with a trace of this user. */
  userId?: string;
  limit: number;
  after?: GroupCursor;
}

export interface TracePageQuery {
  limit: number;
  after?: TraceCursor;
}

const isGroupKey = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && isStorableText(v);

function check<T extends object>(cls: new () => T, input: unknown): T {
  if (!isJsonObject(input)) throw validationError('query must be an object');
  const checked = validateDto(cls, input, '');
  if (!checked.ok) throw validationError(checked.message);
  return checked.value;
}

function groupFilter(q: GroupFilterFields, userId?: string): GroupFilter {
  if (q.fromTimestamp && q.toTimestamp && q.toTimestamp < q.fromTimestamp)
    throw validationError('toTimestamp: must not be before fromTimestamp');
  const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  return {
    idContains: nonEmpty(q.id),
    environment: nonEmpty(q.environment),
    from: q.fromTimestamp,
    to: q.toTimestamp,
    userId: nonEmpty(userId),
    limit: q.limit ?? TRACE_QUERY_LIMIT.default,
    after: nonEmpty(q.cursor) ? decodeCursor<GroupCursor>(q.cursor as string, [isMicroIsoText, isGroupKey]) : undefined,
  };
}

/** `GET /api/v1/sessions` / `traceSession.list`: id, userId, environment, fromTimestamp, toTimestamp, limit, cursor. */
export function validateSessionListQuery(input: unknown): GroupFilter {
  const q = check(SessionListFields, input);
  return groupFilter(q, q.userId);
}

/** `GET /api/v1/users` / `traceUser.list`: id, environment, fromTimestamp, toTimestamp, limit, cursor. */
export function validateUserListQuery(input: unknown): GroupFilter {
  return groupFilter(check(GroupFilterFields, input));
}

/** A page of one session's traces: limit, cursor. */
export function validateTracePageQuery(input: unknown): TracePageQuery {
  const q = check(PageFields, input);
  return {
    limit: q.limit ?? TRACE_QUERY_LIMIT.default,
    after: q.cursor === undefined || q.cursor === '' ? undefined : decodeCursor<TraceCursor>(q.cursor, [isMicroIsoText, isRowId]),
  };
}

/** A session's or user's id as a path or RPC field: text Postgres can compare. */
export function readGroupId(raw: unknown, field: string): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 10_000 || !isStorableText(raw)) {
    throw validationError(
      `${field}: must be a non-empty string of at most 10000 characters that ${UNSTORABLE_TEXT.replace('must', 'does')}`,
    );
  }
  return raw;
}
