import { Type } from 'class-transformer';
import { Allow, IsArray, IsNumber, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { TRACE_QUERY_LIMIT } from '@app/domain';
import { DecimalIntegerField } from '../validation/integer-field';
import { StorableText } from '../validation/text-fields';
import { TimestampField } from '../validation/timestamp-field';

/** Query of GET /api/v1/traces/:id. */
export class TraceReadQueryDto {
  @IsOptional() @IsString() minSeq?: string;
}

/**
 * The trace list's filters (CONTRACT "Traces") but tags, which REST and RPC spell differently.
 * Every value compared in Postgres is text it can store: a NUL would otherwise fail the
 * statement (BAD_INPUTS 5).
 */
export class TraceFilterFields {
  @IsOptional() @IsString() @Length(1, 256) id?: string;
  @IsOptional() @StorableText() name?: string;
  @IsOptional() @StorableText() userId?: string;
  @IsOptional() @StorableText() sessionId?: string;
  @IsOptional() @StorableText() environment?: string;
  /** Epoch milliseconds, from an ISO 8601 timestamp. */
  @IsOptional() @TimestampField() fromTimestamp?: number;
  @IsOptional() @TimestampField() toTimestamp?: number;
  @IsOptional() @StorableText() spanType?: string;
  @IsOptional() @StorableText() model?: string;
  /** Traces with a span of this operation (`chat`, `execute_tool`…), any case. */
  @IsOptional() @StorableText() operation?: string;
  /** Traces with a score of this name (any score when absent), whose value is within minScore–maxScore when given. */
  @IsOptional() @StorableText() scoreName?: string;
  /** Numeric scores compare by value, boolean ones as 1 and 0; categorical ones never match a bound. */
  @IsOptional() @Type(() => Number) @IsNumber({}, { message: 'minScore must be a number' }) minScore?: number;
  @IsOptional() @Type(() => Number) @IsNumber({}, { message: 'maxScore must be a number' }) maxScore?: number;

  @IsOptional() @DecimalIntegerField(TRACE_QUERY_LIMIT) limit?: number;

  @IsOptional() @IsString() cursor?: string;
}

/** Query of GET /api/v1/traces. */
export class TraceQueryDto extends TraceFilterFields {
  @IsOptional() @IsString() minSeq?: string;
  /** Comma-separated; every tag must match. */
  @IsOptional() @StorableText() tags?: string;
}

/** Input of RPC `trace.list`: the same filters, tags as a list (a tag may hold a comma). */
export class TraceListInput extends TraceFilterFields {
  @IsUUID('all', { message: 'projectId must be a UUID' }) projectId: string;
  @IsOptional()
  @IsArray({ message: 'tags must be an array of strings' })
  @StorableText({ each: true })
  tags?: string[];
}

/** Input of RPC `trace.get`; its paging fields (`spansLimit`, `spansCursor`) are the domain's TraceReadQuery. */
export class TraceGetInput {
  @IsUUID('all', { message: 'projectId must be a UUID' }) projectId: string;
  @IsString({ message: 'id must be a string' }) @Length(1, 256, { message: 'id must be 1 to 256 characters' }) id: string;
  /** Checked by the domain's TraceReadQuery (the REST parameters' rules). */
  @Allow() spansLimit?: number;
  @Allow() spansCursor?: string;
}

/** Input of RPC `trace.spans` and `trace.scores`; `limit` and `cursor` are the domain's SpanPageQuery/ScorePageQuery. */
export class TracePageInput {
  @IsUUID('all', { message: 'projectId must be a UUID' }) projectId: string;
  @IsString({ message: 'traceId must be a string' }) @Length(1, 256, { message: 'traceId must be 1 to 256 characters' }) traceId: string;
  /** Checked by the domain's SpanPageQuery or ScorePageQuery. */
  @Allow() limit?: number;
  @Allow() cursor?: string;
}

/** Input of RPC `trace.span`. */
export class TraceSpanInput extends TracePageInput {
  @IsString({ message: 'spanId must be a string' }) @Length(1, 256, { message: 'spanId must be 1 to 256 characters' }) spanId: string;
}
