import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, IsString, Length, Max, Min } from 'class-validator';
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

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(TRACE_QUERY_LIMIT.min)
  @Max(TRACE_QUERY_LIMIT.max)
  limit?: number;

  @IsOptional() @IsString() cursor?: string;
  @IsOptional() @IsString() minSeq?: string;
}
