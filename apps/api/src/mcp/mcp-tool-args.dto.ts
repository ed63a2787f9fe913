import {
  ClosedDto,
  MCP_LIMITS,
  OverviewInput,
  PageQuery,
  Optional,
  Required,
  RunResultsQuery,
  ScoreBody,
  TRACE_READ_LIMITS,
  anyText,
  integer,
  listOf,
  oneOf,
  positiveInteger,
  storableText,
  storableTextList,
} from '@app/domain';
import { TraceFilterFields, traceId } from '../traces/trace-query.dto';

/**
 * The arguments of each MCP tool (docs/mcp.md): its input schema is `schemaOf` these, and
 * `validateDto` reads them, so a tool takes what the REST route takes, by the same rules.
 * Every one is closed: an argument a tool does not know is refused by name.
 */

/** The trace list's filters, cursor and limit (GET /api/v1/traces), tags as a list. */
@ClosedDto()
export class SearchTracesArgs extends TraceFilterFields {
  /** Every tag must match. */
  @Optional(storableTextList) tags?: string[];
}

@ClosedDto()
export class GetTraceArgs {
  @Required(traceId) traceId: string;
  @Optional(integer(MCP_LIMITS.spans)) spansLimit?: number;
  @Optional(anyText) spansCursor?: string;
}

/** The fields of a span as GET /api/v1/traces/{id}/spans/{spanId} answers them. */
export const SPAN_FIELDS = [
  'id',
  'traceId',
  'otelSpanId',
  'externalId',
  'parentId',
  'name',
  'type',
  'operation',
  'model',
  'modelParameters',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'usageDetails',
  'cost',
  'costSource',
  'costDetails',
  'costDefinition',
  'unpricedUsage',
  'input',
  'output',
  'metadata',
  'attributes',
  'startTime',
  'endTime',
  'level',
  'statusMessage',
] as const;

@ClosedDto()
export class GetSpanArgs {
  @Required(traceId) traceId: string;
  @Required(traceId) spanId: string;
  /** Only these fields (all when absent): `input` alone reads one large field without the rest. */
  @Optional(listOf(oneOf(SPAN_FIELDS), SPAN_FIELDS.length)) fields?: (typeof SPAN_FIELDS)[number][];
}

/** A page of one trace's scores, as GET /api/v1/traces/{id}/scores. */
@ClosedDto()
export class ListScoresArgs {
  @Required(traceId) traceId: string;
  @Optional(integer(TRACE_READ_LIMITS.scores)) limit?: number;
  @Optional(anyText) cursor?: string;
}

/** One version of a prompt template: `version` or `label`, else production, else latest (GET /api/v1/prompt-templates?name=). */
@ClosedDto()
export class GetPromptArgs {
  @Required(storableText) name: string;
  @Optional(positiveInteger) version?: number;
  @Optional(storableText) label?: string;
}

@ClosedDto()
export class ListDatasetsArgs extends PageQuery {}

/** A run's results (GET /api/v1/datasets/{name}/runs/{runName}). */
@ClosedDto()
export class GetDatasetRunArgs extends RunResultsQuery {
  @Required(storableText) datasetName: string;
  @Required(storableText) runName: string;
}

/** The overview's totals and series over `from`–`to` (the dashboard's overview). */
@ClosedDto()
export class ProjectOverviewArgs extends OverviewInput {}

/** One score, as POST /api/v1/scores takes it. */
@ClosedDto()
export class CreateScoreArgs extends ScoreBody {}
