import type { ScoreFields, SpanFields, TraceFields } from '@app/domain';

/** How a merged field is stored: its column and SQL type. One table per read model. */
export interface FieldColumn<F> {
  field: keyof F & string;
  column: string;
  type: 'text' | 'uuid' | 'jsonb' | 'timestamptz' | 'bigint' | 'double precision' | 'text[]';
  /** SQL for the field's whole value in row `row` (`t` or `excluded`) when the column alone does not hold all of it. */
  whole?: (row: string) => string;
}

/**
 * A span's attributes as sent: the stored ones with the input and output put back under the
 * keys they were taken from (`leanAttributes`). Every read of `attributes` goes through it.
 */
export const SPAN_ATTRIBUTES = (row: string): string =>
  `spanlog_span_attributes(${row}.attributes, ${row}.input_attribute, ${row}.output_attribute, ${row}.input, ${row}.output)`;

export const TRACE_FIELD_COLUMNS: FieldColumn<TraceFields>[] = [
  { field: 'name', column: 'name', type: 'text' },
  { field: 'timestamp', column: 'body_timestamp', type: 'timestamptz' },
  { field: 'userId', column: 'user_id', type: 'text' },
  { field: 'sessionId', column: 'session_id', type: 'text' },
  { field: 'metadata', column: 'metadata', type: 'jsonb' },
  { field: 'tags', column: 'tags', type: 'text[]' },
  { field: 'input', column: 'input', type: 'jsonb' },
  { field: 'output', column: 'output', type: 'jsonb' },
  { field: 'release', column: 'release', type: 'text' },
  { field: 'version', column: 'version', type: 'text' },
  { field: 'environment', column: 'environment', type: 'text' },
];

export const SPAN_FIELD_COLUMNS: FieldColumn<SpanFields>[] = [
  { field: 'traceId', column: 'trace_id', type: 'uuid' },
  { field: 'parentId', column: 'parent_id', type: 'uuid' },
  { field: 'name', column: 'name', type: 'text' },
  { field: 'type', column: 'type', type: 'text' },
  { field: 'operation', column: 'operation', type: 'text' },
  { field: 'model', column: 'model', type: 'text' },
  { field: 'modelParameters', column: 'model_parameters', type: 'jsonb' },
  { field: 'promptTokens', column: 'prompt_tokens', type: 'bigint' },
  { field: 'completionTokens', column: 'completion_tokens', type: 'bigint' },
  { field: 'totalTokens', column: 'total_tokens', type: 'bigint' },
  { field: 'usageDetails', column: 'usage_details', type: 'jsonb' },
  { field: 'cost', column: 'cost', type: 'double precision' },
  { field: 'costSource', column: 'cost_source', type: 'text' },
  { field: 'costDetails', column: 'cost_details', type: 'jsonb' },
  { field: 'unpricedUsage', column: 'unpriced_usage', type: 'text[]' },
  { field: 'input', column: 'input', type: 'jsonb' },
  { field: 'output', column: 'output', type: 'jsonb' },
  { field: 'metadata', column: 'metadata', type: 'jsonb' },
  { field: 'attributes', column: 'attributes', type: 'jsonb', whole: SPAN_ATTRIBUTES },
  { field: 'startTime', column: 'start_time', type: 'timestamptz' },
  { field: 'endTime', column: 'end_time', type: 'timestamptz' },
  { field: 'level', column: 'level', type: 'text' },
  { field: 'statusMessage', column: 'status_message', type: 'text' },
];

export const SCORE_FIELD_COLUMNS: FieldColumn<ScoreFields>[] = [
  { field: 'traceId', column: 'trace_id', type: 'uuid' },
  { field: 'spanId', column: 'span_id', type: 'uuid' },
  { field: 'name', column: 'name', type: 'text' },
  { field: 'value', column: 'value', type: 'jsonb' },
  { field: 'dataType', column: 'data_type', type: 'text' },
  { field: 'comment', column: 'comment', type: 'text' },
  { field: 'metadata', column: 'metadata', type: 'jsonb' },
  { field: 'source', column: 'source', type: 'text' },
  { field: 'timestamp', column: 'timestamp', type: 'timestamptz' },
  { field: 'authorUserId', column: 'author_user_id', type: 'text' },
  { field: 'authorEmail', column: 'author_email', type: 'text' },
];
