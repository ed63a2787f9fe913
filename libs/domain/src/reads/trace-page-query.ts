import { validationError } from '../errors';
import type { JsonObject } from '../json/types';
import { TRACE_READ_LIMITS } from '../limits';
import { type FieldRule, Optional, validateDto } from '../validation';

const DIGITS = /^[0-9]{1,7}$/;

/** A page size, from a query string's decimal digits (not `0x10` nor `1e2`) or a JSON integer. */
const pageSize = ({ min, max }: { min: number; max: number }): FieldRule => ({
  read: (v) => (typeof v === 'string' && DIGITS.test(v) ? Number(v) : v),
  test: (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max,
  message: `must be an integer from ${min} to ${max}`,
});

/** A cursor as a page answered it: base64url text, bounded before it is decoded. */
const cursorText: FieldRule = {
  test: (v) => typeof v === 'string' && v.length <= 1_024,
  message: 'must be a cursor string returned by this endpoint',
};

/** What pages the spans of a trace read (GET /api/v1/traces/:id, RPC trace.get). */
export class TraceReadQuery {
  @Optional(pageSize(TRACE_READ_LIMITS.spans)) spansLimit?: number;
  @Optional(cursorText) spansCursor?: string;
}

/** A page of a trace's spans or scores (GET /api/v1/traces/:id/spans|scores, RPC trace.spans|scores). */
export class SpanPageQuery {
  @Optional(pageSize(TRACE_READ_LIMITS.spans)) limit?: number;
  @Optional(cursorText) cursor?: string;
}
export class ScorePageQuery {
  @Optional(pageSize(TRACE_READ_LIMITS.scores)) limit?: number;
  @Optional(cursorText) cursor?: string;
}

/** The paging parameters of a query string or an RPC input, other keys ignored; a bad one is a 400 naming it. */
export function readPageQuery<T extends object>(cls: new () => T, plain: JsonObject): T {
  const check = validateDto(cls, plain, '');
  if (!check.ok) throw validationError(check.message);
  return check.value;
}
