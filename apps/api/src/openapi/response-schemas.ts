import { EXPORT_CSV_COLUMNS, type JsonSchema, exportCsvRow } from '@app/domain';

/**
 * The bodies the REST routes answer with, as JSON Schema for the OpenAPI document. Every field
 * listed is required (a field that may be absent is `null` instead); fields added later are
 * allowed, so a client written against the document keeps working.
 */

type Props = Record<string, JsonSchema>;
const object = (properties: Props, description?: string): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  ...(description && { description }),
});
const str: JsonSchema = { type: 'string' };
const strOrNull: JsonSchema = { type: ['string', 'null'] };
const time: JsonSchema = { type: 'string', format: 'date-time' };
const timeOrNull: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const numOrNull: JsonSchema = { type: ['number', 'null'] };
const int: JsonSchema = { type: 'integer' };
const intOrNull: JsonSchema = { type: ['integer', 'null'] };
const bool: JsonSchema = { type: 'boolean' };
const json: JsonSchema = { description: 'Any JSON value, as sent.' };
const jsonObject: JsonSchema = { type: 'object' };
const objectOrNull: JsonSchema = { type: ['object', 'null'] };
/** `schema` with fields present only sometimes. */
const withOptional = (schema: JsonSchema, properties: Props): JsonSchema => ({
  ...schema,
  properties: { ...schema.properties, ...properties },
});
/** Fields a read cut (TRACE_READ_LIMITS' `fieldBytes`): each one's size in bytes; the fields themselves read null. */
const truncated: Props = { truncated: { type: 'object', additionalProperties: { type: 'integer' } } };
const list = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const strings = list(str);

/** A cursor page: `meta.nextCursor` is null on the last page. */
export const cursorPage = (item: JsonSchema): JsonSchema => object({ data: list(item), meta: object({ nextCursor: strOrNull }) });

const pageMeta = object({ page: int, limit: int, totalItems: int, totalPages: int });
/** A numbered page, Langfuse's shape (`meta.page` from 1). */
export const numberedPage = (item: JsonSchema): JsonSchema => object({ data: list(item), meta: pageMeta });

// Writes.
export const NATIVE_BATCH_ACCEPTED = object(
  {
    accepted: int,
    errors: list(
      object(
        { index: int, id: strOrNull, code: { type: 'string', enum: ['VALIDATION_ERROR'] }, message: str },
        'An event refused: its index in `batch`, its id, and the field at fault.',
      ),
    ),
  },
  'The events stored; the read-your-writes token is in the Spanlog-Seq header.',
);
export const SCORES_ACCEPTED = object({ accepted: int, ids: list({ type: 'string', format: 'uuid' }) });
export const OTLP_ACCEPTED = object({ accepted: int }, 'The spans stored.');
/** `?explain=true`: nothing stored, how each span would be read. */
export const OTLP_EXPLAINED = object({ spans: list(jsonObject) }, 'With explain=true: how each span would be read; nothing stored.');
export const OTLP_LOGS_ACCEPTED = object({ accepted: int, attached: int });
export const LANGFUSE_INGESTION = object({
  successes: list(object({ id: str, status: int })),
  errors: list({ type: 'object', properties: { id: str, status: int, error: str, message: str }, required: ['id', 'status'] }),
});

// Reads of traces, sessions and users.
const scoreSummary = object(
  { name: strOrNull, source: strOrNull, value: numOrNull, count: int },
  'Mean of the numeric or boolean scores of a name and source.',
);
const traceFields: Props = {
  id: { type: 'string', format: 'uuid' },
  otelTraceId: strOrNull,
  externalId: strOrNull,
  name: strOrNull,
  createdAt: time,
  timestamp: time,
  userId: strOrNull,
  sessionId: strOrNull,
  tags: strings,
  metadata: jsonObject,
  environment: strOrNull,
  release: strOrNull,
  version: strOrNull,
  input: json,
  output: json,
  spanCount: int,
  totalTokens: intOrNull,
  totalCost: numOrNull,
  latencyMs: numOrNull,
};
export const TRACE_SUMMARY = withOptional(object({ ...traceFields, scores: list(scoreSummary) }), truncated);
const spanFields: Props = {
  id: { type: 'string', format: 'uuid' },
  traceId: { type: 'string', format: 'uuid' },
  otelSpanId: strOrNull,
  externalId: strOrNull,
  parentId: strOrNull,
  name: strOrNull,
  type: str,
  operation: strOrNull,
  model: strOrNull,
  modelParameters: objectOrNull,
  promptTokens: intOrNull,
  completionTokens: intOrNull,
  totalTokens: intOrNull,
  usageDetails: objectOrNull,
  cost: numOrNull,
  costSource: strOrNull,
  costDetails: objectOrNull,
  costDefinition: objectOrNull,
  unpricedUsage: { ...strings, description: 'Usage types no price covered.' },
  input: json,
  output: json,
  metadata: jsonObject,
  attributes: jsonObject,
  startTime: time,
  endTime: timeOrNull,
  level: strOrNull,
  statusMessage: strOrNull,
};
export const SPAN = object(spanFields);
/** A span of a page: as SPAN, but metadata and attributes read null too when the page cut them. */
const pageSpanFields: Props = { ...spanFields, metadata: objectOrNull, attributes: objectOrNull };
export const PAGE_SPAN = withOptional(object(pageSpanFields), truncated);
export const SCORE = object({
  id: { type: 'string', format: 'uuid' },
  externalId: strOrNull,
  traceId: { type: 'string', format: 'uuid' },
  spanId: strOrNull,
  name: str,
  value: { type: ['number', 'string', 'boolean'] },
  dataType: str,
  comment: strOrNull,
  metadata: jsonObject,
  source: str,
  timestamp: time,
  createdAt: time,
  author: { anyOf: [{ type: 'null' }, object({ userId: str, email: strOrNull })], description: 'The user of a score set by hand.' },
});
export const TRACE = withOptional(
  object({
    ...traceFields,
    scoreCount: int,
    spans: list(withOptional(object({ ...pageSpanFields, scores: list(SCORE) }), truncated)),
    scores: list(SCORE),
    nextSpansCursor: strOrNull,
    nextScoresCursor: strOrNull,
  }),
  truncated,
);
const groupFields: Props = {
  id: str,
  firstTraceAt: time,
  lastTraceAt: time,
  traceCount: int,
  spanCount: int,
  durationMs: numOrNull,
  totalTokens: intOrNull,
  totalCost: numOrNull,
};
export const SESSION_SUMMARY = object({ ...groupFields, userIds: strings, scores: list(scoreSummary) });
export const SESSION = object({
  ...groupFields,
  userIds: strings,
  scores: list(scoreSummary),
  traces: list(TRACE_SUMMARY),
  meta: object({ nextCursor: strOrNull }),
});
export const USER_SUMMARY = object({ ...groupFields, sessionCount: int, scores: list(scoreSummary) });
export const UNPRICED_USAGE = object({ from: timeOrNull, to: timeOrNull, models: list(jsonObject) });

// Exports: streams of text, not JSON documents; the example is a trace as both formats write it.
const exportedTrace = {
  id: '0b6c4a34-5a1e-5c2f-9d0e-2b7f3c1a9e10',
  otelTraceId: null,
  externalId: 'order-4711',
  name: 'checkout',
  createdAt: '2026-01-15T10:00:00.120Z',
  timestamp: '2026-01-15T10:00:00.000Z',
  userId: 'u1',
  sessionId: 's1',
  tags: [],
  metadata: {},
  environment: 'production',
  release: null,
  version: null,
  input: 'Where is my order?',
  output: 'On its way.',
  spanCount: 1,
  totalTokens: 15,
  totalCost: 0.000075,
  latencyMs: 820,
};
export const TRACES_JSONL = {
  schema: {
    type: 'string',
    description:
      "One trace per line, as GET /api/v1/traces/{id} shows a trace's fields; with `include`, its `spans` and `scores` nested in the line.",
  },
  example: `${JSON.stringify(exportedTrace)}\n`,
} satisfies { schema: JsonSchema; example: string };
export const TRACES_CSV = {
  schema: {
    type: 'string',
    description:
      `UTF-8 with a byte-order mark, RFC 4180 quoting, CRLF rows. Columns: ${EXPORT_CSV_COLUMNS.join(', ')}. ` +
      'A row per trace (`record` = `trace`), and with `include` a row per span and per score after it.',
  },
  example: [
    EXPORT_CSV_COLUMNS.join(','),
    exportCsvRow('trace', { ...exportedTrace, traceId: exportedTrace.id, cost: exportedTrace.totalCost }).join(','),
    '',
  ].join('\r\n'),
} satisfies { schema: JsonSchema; example: string };

// Routing and prompts.
export const ROUTE_DECISION = object({
  model: strOrNull,
  reason: str,
  candidates: list(object({ model: str, eligible: bool, rank: intOrNull, stats: jsonObject, notes: strings })),
});
export const PROMPT_TEMPLATE = object({
  name: str,
  version: int,
  template: { type: ['string', 'array'], description: 'Text, or chat messages `{role, content}`.' },
  labels: strings,
  config: jsonObject,
  commitMessage: strOrNull,
  createdAt: time,
});

// Datasets.
const datasetFields: Props = {
  id: { type: 'string', format: 'uuid' },
  name: str,
  description: strOrNull,
  metadata: json,
  createdAt: time,
  updatedAt: time,
};
export const DATASET = object(datasetFields);
const itemFields: Props = {
  id: str,
  datasetId: { type: 'string', format: 'uuid' },
  datasetName: str,
  input: json,
  expectedOutput: json,
  metadata: json,
  sourceTraceId: strOrNull,
  status: { type: 'string', enum: ['ACTIVE', 'ARCHIVED'] },
  createdAt: time,
  updatedAt: time,
};
export const DATASET_ITEM = object({ ...itemFields, sourceSpanId: strOrNull });
export const ITEMS_ACCEPTED = object({ accepted: int, ids: strings });
const runFields: Props = {
  ...datasetFields,
  datasetId: { type: 'string', format: 'uuid' },
  datasetName: str,
};
export const DATASET_RUN = object(runFields);
export const RUN_RESULTS = object({
  ...runFields,
  aggregates: object({
    count: int,
    scores: list(jsonObject),
    latencyMs: object({ p50: numOrNull, p95: numOrNull }),
    totalCost: numOrNull,
    totalTokens: intOrNull,
  }),
  items: list(jsonObject),
  meta: pageMeta,
});

// Langfuse's shapes.
export const LANGFUSE_DATASET = object({
  ...datasetFields,
  inputSchema: json,
  expectedOutputSchema: json,
  projectId: { type: 'string', format: 'uuid' },
});
export const LANGFUSE_DATASET_ITEM = object({ ...itemFields, sourceObservationId: strOrNull, mediaReferences: list(json) });
const runItemFields: Props = {
  id: { type: 'string', format: 'uuid' },
  datasetRunId: { type: 'string', format: 'uuid' },
  datasetRunName: str,
  datasetItemId: str,
  traceId: str,
  observationId: strOrNull,
  createdAt: time,
  updatedAt: time,
};
export const LANGFUSE_RUN_ITEM = object(runItemFields);
export const LANGFUSE_RUN = object({ ...runFields, datasetRunItems: list(LANGFUSE_RUN_ITEM) });
export const LANGFUSE_PROJECTS = object({
  data: list(
    object({ id: { type: 'string', format: 'uuid' }, name: str, organization: object({ id: str, name: str }), metadata: jsonObject }),
  ),
});
export const LANGFUSE_MODEL = object({
  id: str,
  modelName: str,
  matchPattern: str,
  startDate: timeOrNull,
  unit: str,
  inputPrice: numOrNull,
  outputPrice: numOrNull,
  totalPrice: numOrNull,
  tokenizerId: strOrNull,
  tokenizerConfig: objectOrNull,
  isLangfuseManaged: bool,
  createdAt: time,
  prices: jsonObject,
  pricingTiers: list(jsonObject),
});
export const LANGFUSE_MESSAGE = object({ message: str });
export const LANGFUSE_SCORE_CONFIG = object({
  id: { type: 'string', format: 'uuid' },
  name: str,
  createdAt: time,
  updatedAt: time,
  projectId: { type: 'string', format: 'uuid' },
  dataType: { type: 'string', enum: ['NUMERIC', 'CATEGORICAL', 'BOOLEAN'] },
  isArchived: bool,
  description: strOrNull,
});
/** Langfuse's own error body, which its SDKs read on the routes that answer it (a missing prompt or score config). */
export const LANGFUSE_ERROR = object({ message: str, error: str });
export const LANGFUSE_PROMPT = object({
  name: str,
  version: int,
  config: jsonObject,
  labels: strings,
  tags: strings,
  commitMessage: strOrNull,
  createdAt: time,
  updatedAt: time,
  type: { type: 'string', enum: ['text', 'chat'] },
  prompt: { type: ['string', 'array'] },
});

// Sessions of the dashboard.
const sessionTokens = object({
  access_token: str,
  refresh_token: str,
  expires_at: { type: 'integer', description: 'Epoch seconds.' },
  user: object({ id: { type: 'string', format: 'uuid' }, email: str }),
});
export const AUTH_SESSION = object({ data: sessionTokens, error: { type: 'null' } });
export const AUTH_LOGGED_OUT = object({ data: object({ success: bool }), error: { type: 'null' } });

// Operations.
export const HEALTH = withOptional(
  object({
    status: { type: 'string', enum: ['ok'], description: 'The API answers; what it depends on is in `checks`.' },
    checks: object({ postgres: { type: 'string', enum: ['ok', 'unreachable'] }, nats: { type: 'string', enum: ['ok', 'unreachable'] } }),
    projections: jsonObject,
  }),
  {
    readReplica: object(
      {
        status: { type: 'string', enum: ['ok', 'unreachable'] },
        lagSeconds: numOrNull,
        lagMessages: intOrNull,
      },
      'Only with DATABASE_READ_URL: the read replica, its replay lag in seconds and the telemetry messages it does not show yet.',
    ),
  },
);

// The MCP server (JSON-RPC 2.0 over Streamable HTTP, docs/mcp.md): the envelope only; what a
// result holds is MCP's (its tools, their arguments and output, are listed by `tools/list`).
const jsonRpcId: JsonSchema = { type: ['string', 'integer', 'null'] };
const jsonRpcError = withOptional(object({ code: int, message: str }), { data: json });
const JSON_RPC_RESULT = object({ jsonrpc: { type: 'string', enum: ['2.0'] }, id: jsonRpcId, result: jsonObject });
export const JSON_RPC_ERROR = object(
  { jsonrpc: { type: 'string', enum: ['2.0'] }, id: jsonRpcId, error: jsonRpcError },
  'A JSON-RPC error: the request (or its transport) refused.',
);
const JSON_RPC_ANSWER: JsonSchema = { anyOf: [JSON_RPC_RESULT, JSON_RPC_ERROR] };
export const MCP_ANSWER: JsonSchema = {
  anyOf: [JSON_RPC_ANSWER, list(JSON_RPC_ANSWER)],
  description: 'A JSON-RPC 2.0 response (`result` or `error`), or one per request of a batch.',
};
