import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsNumber, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { TRACE_QUERY_LIMIT } from '@app/domain';

/** Query of GET /api/v1/traces (CONTRACT "Traces"). */
export class TraceQueryDto {
  @IsOptional() @IsString() @Length(1, 256) id?: string;
  @IsOptional() @IsString() name?: string;
  /** Comma-separated; every tag must match. */
  @IsOptional() @IsString() tags?: string;
  @IsOptional() @IsString() userId?: string;
  @IsOptional() @IsString() sessionId?: string;
  @IsOptional() @IsString() environment?: string;
  @IsOptional() @IsISO8601({ strict: true }) fromTimestamp?: string;
  @IsOptional() @IsISO8601({ strict: true }) toTimestamp?: string;
  @IsOptional() @IsString() spanType?: string;
  @IsOptional() @IsString() model?: string;
  /** Traces with a score of this name (any score when absent), whose value is within minScore–maxScore when given. */
  @IsOptional() @IsString() scoreName?: string;
  /** Numeric scores compare by value, boolean ones as 1 and 0; categorical ones never match a bound. */
  @IsOptional() @Type(() => Number) @IsNumber({}, { message: 'minScore must be a number' }) minScore?: number;
  @IsOptional() @Type(() => Number) @IsNumber({}, { message: 'maxScore must be a number' }) maxScore?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(TRACE_QUERY_LIMIT.min)
  @Max(TRACE_QUERY_LIMIT.max)
  limit?: number;

  @IsOptional() @IsString() cursor?: string;
  @IsOptional() @IsString() minSeq?: string;
}
