import {
  DatasetBody,
  DatasetItemBody,
  GroupFilterFields,
  ItemListQuery,
  type JsonSchema,
  LangfuseDatasetItemBody,
  LangfuseItemListQuery,
  LangfuseModelInput,
  LangfuseModelsPage,
  LangfusePageQuery,
  MAX_BATCH_EVENTS,
  MAX_SCORES_PER_REQUEST,
  NATIVE_EVENT_BODIES,
  NATIVE_EVENT_TYPES,
  NativeEventEnvelope,
  PageFields,
  PageQuery,
  PromptVersionBody,
  RouteModelRequest,
  RunResultsQuery,
  RunItemBody,
  ScoreBody,
  ScoreConfigFields,
  ScorePageQuery,
  SessionListFields,
  SpanPageQuery,
  TraceReadQuery,
  UnpricedQueryFields,
  schemaOf,
} from '@app/domain';
import { LoginDto, RefreshDto } from '../sessions/auth.dto';
import { TraceExportQueryDto, TraceQueryDto } from '../traces/trace-query.dto';
import { ERROR_BODY, type RouteDoc } from './route-doc';
import * as body from './response-schemas';

const MIN_SEQ: JsonSchema = {
  type: 'object',
  properties: {
    minSeq: {
      type: 'string',
      description: 'A Spanlog-Seq token: the read waits until that write is visible (503 NOT_YET_VISIBLE past the wait).',
    },
  },
};
const withMinSeq = (schema: JsonSchema): JsonSchema => ({ ...schema, properties: { ...schema.properties, ...MIN_SEQ.properties } });

const NATIVE_BODIES: JsonSchema = {
  anyOf: Object.entries(NATIVE_EVENT_BODIES).map(([type, cls]) => ({ ...schemaOf(cls), description: `body of a ${type} event` })),
};
const NATIVE_BATCH: JsonSchema = {
  type: 'object',
  properties: {
    batch: {
      type: 'array',
      maxItems: MAX_BATCH_EVENTS,
      items: {
        ...schemaOf(NativeEventEnvelope),
        properties: { ...schemaOf(NativeEventEnvelope).properties, body: NATIVE_BODIES },
        description: 'An event: `body` is the body of its `type`.',
      },
    },
  },
  required: ['batch'],
};
/** Langfuse's batch: the native events, and the older `observation-create|update`, whose `body.type` (SPAN, GENERATION, EVENT) names the native event. */
const LANGFUSE_BATCH: JsonSchema = {
  ...NATIVE_BATCH,
  properties: {
    batch: {
      ...NATIVE_BATCH.properties?.batch,
      items: {
        ...NATIVE_BATCH.properties?.batch.items,
        properties: {
          ...NATIVE_BATCH.properties?.batch.items?.properties,
          type: { type: 'string', enum: [...NATIVE_EVENT_TYPES, 'observation-create', 'observation-update'] },
        },
      },
    },
  },
};
const SCORES_REQUEST: JsonSchema = {
  anyOf: [
    schemaOf(ScoreBody),
    {
      type: 'object',
      properties: { scores: { type: 'array', maxItems: MAX_SCORES_PER_REQUEST, items: schemaOf(ScoreBody) } },
      required: ['scores'],
    },
  ],
};
/** OTLP/HTTP JSON (`ExportTraceServiceRequest`, `ExportLogsServiceRequest`): read by the OTLP walker, not by field rules (docs/ARCHITECTURE.md "Validation"). */
const OTLP_TRACES: JsonSchema = {
  type: 'object',
  properties: { resourceSpans: { type: 'array', items: { type: 'object' } } },
  description: 'OTLP/HTTP JSON ExportTraceServiceRequest (protobuf is refused with 415).',
};
const OTLP_LOGS: JsonSchema = {
  type: 'object',
  properties: { resourceLogs: { type: 'array', items: { type: 'object' } } },
  description: 'OTLP/HTTP JSON ExportLogsServiceRequest.',
};
const EXPLAIN: JsonSchema = {
  type: 'object',
  properties: {
    explain: { type: 'string', enum: ['true', 'false'], description: 'true: store nothing, answer how each span would be read.' },
  },
};
const PROMPT_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'One template: without it, a page of the list.' },
    version: { type: 'string', pattern: '^[0-9]+$' },
    label: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    cursor: { type: 'string' },
  },
};
const LANGFUSE_PROMPT_QUERY: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'string', pattern: '^[0-9]+$' }, label: { type: 'string' } },
};
const DATASET_ITEMS_REQUEST: JsonSchema = {
  anyOf: [
    schemaOf(DatasetItemBody),
    { type: 'object', properties: { items: { type: 'array', maxItems: 1_000, items: schemaOf(DatasetItemBody) } }, required: ['items'] },
  ],
};
const LANGFUSE_SCORE_CONFIG_REQUEST: JsonSchema = { ...schemaOf(ScoreConfigFields), required: ['name', 'dataType'] };

const ok = (schema: JsonSchema, description = 'OK') => ({ description, schema });
const traceId = { id: 'The trace: its UUID, OTel hex id or the id the client gave it.' };
const datasetName = { name: "The dataset's name." };
const notModified = { description: 'Not Modified: the If-None-Match tag names this version.' };

const JSON_RPC_REQUEST: JsonSchema = {
  type: 'object',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    method: { type: 'string' },
    id: { type: ['string', 'integer'] },
    params: { type: 'object' },
  },
  required: ['jsonrpc', 'method'],
};
const MCP_REQUEST: JsonSchema = {
  anyOf: [JSON_RPC_REQUEST, { type: 'array', items: JSON_RPC_REQUEST }],
  description: 'A JSON-RPC 2.0 request or notification (`initialize`, `tools/list`, `tools/call`, …), or a batch of them.',
};
/** GET /api/v1/traces/export and its session twin: the stream in the format asked for. */
const exportResponses = {
  200: {
    description: 'Every matching trace, streamed in `format`; a filter error is a 400 before anything is sent',
    content: { 'application/x-ndjson': body.TRACES_JSONL, 'text/csv': body.TRACES_CSV },
    headers: { 'Content-Disposition': 'attachment; filename="traces-<time>.<format>"' },
  },
};
const exportDescription =
  'The trace list\'s filters, every match newest first, in memory that does not grow with the export (docs/reading.md "Exports"). ' +
  'An export runs at most 15 minutes, then the connection ends with the body unfinished.';
const mcpNotAllowed = {
  405: {
    description: 'Method Not Allowed: the server is stateless, with no stream or session; POST each message',
    schema: body.JSON_RPC_ERROR,
    headers: { Allow: '`POST`' },
    example: {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST each message' },
      id: null,
    },
  },
};
/** What MCP's transport refuses itself, as a JSON-RPC error; the API's own checks before it answer its error body. */
const mcpRefused = (description: string) => ({ description, schema: { anyOf: [body.JSON_RPC_ERROR, ERROR_BODY] } });

/**
 * Every REST route of the API (docs/api.md). The unit test openapi-document.spec.ts fails when
 * a controller's route is missing here or an entry names no route.
 */
export const ROUTE_DOCS: readonly RouteDoc[] = [
  // Ingestion.
  {
    method: 'POST',
    path: '/api/v1/traces',
    tag: 'Ingestion',
    summary: 'Ingest a batch of trace, span, generation, event, score and log events',
    auth: 'apiKey',
    body: NATIVE_BATCH,
    requestExample: {
      batch: [
        { id: 'e1', type: 'trace-create', timestamp: '2026-01-15T10:00:00.000Z', body: { id: 'checkout-42', name: 'checkout' } },
        {
          id: 'e2',
          type: 'generation-create',
          timestamp: '2026-01-15T10:00:00.000Z',
          body: { id: 'gen-1', traceId: 'checkout-42', name: 'chat', model: 'gpt-4o', usage: { input: 10, output: 5 } },
        },
      ],
    },
    responses: {
      201: {
        description: 'Stored; events refused one by one are listed',
        schema: body.NATIVE_BATCH_ACCEPTED,
        example: { accepted: 2, errors: [] },
      },
    },
  },
  {
    method: 'POST',
    path: '/api/v1/scores',
    tag: 'Ingestion',
    summary: `Score traces or spans: one score, or \`{scores: [...]}\` of up to ${MAX_SCORES_PER_REQUEST}`,
    auth: 'apiKey',
    body: SCORES_REQUEST,
    requestExample: { traceId: 'checkout-42', name: 'accuracy', value: 0.9 },
    responses: {
      201: { description: 'Stored', schema: body.SCORES_ACCEPTED, example: { accepted: 1, ids: ['f55fdc5f-d328-55ab-8d42-3229182ef3dc'] } },
    },
  },
  ...(['/api/v1/otel/traces', '/api/v1/otel/v1/traces'] as const).map((path): RouteDoc => ({
    method: 'POST',
    path,
    tag: 'Ingestion',
    summary: 'Ingest OTLP/HTTP JSON spans (`/otel/v1/traces`: the path a Collector appends /v1/traces to)',
    auth: 'apiKey',
    query: EXPLAIN,
    body: OTLP_TRACES,
    responses: {
      200: { description: 'Stored (or explained)', schema: { anyOf: [body.OTLP_ACCEPTED, body.OTLP_EXPLAINED] }, example: { accepted: 1 } },
    },
  })),
  ...(['/api/v1/otel/logs', '/api/v1/otel/v1/logs'] as const).map((path): RouteDoc => ({
    method: 'POST',
    path,
    tag: 'Ingestion',
    summary: 'Ingest OTLP/HTTP JSON log records (GenAI content sent as logs)',
    auth: 'apiKey',
    body: OTLP_LOGS,
    responses: { 200: { description: 'Stored', schema: body.OTLP_LOGS_ACCEPTED } },
  })),

  // Traces, sessions, users.
  {
    method: 'GET',
    path: '/api/v1/traces',
    tag: 'Traces',
    summary: 'List traces, newest first, filtered',
    auth: 'apiKey',
    query: TraceQueryDto,
    responses: { 200: ok(body.cursorPage(body.TRACE_SUMMARY)) },
  },
  {
    method: 'GET',
    path: '/api/v1/traces/:id',
    tag: 'Traces',
    summary: 'One trace with a page of its spans and of its scores',
    auth: 'apiKey',
    params: traceId,
    query: withMinSeq(schemaOf(TraceReadQuery)),
    responses: { 200: ok(body.TRACE) },
  },
  {
    method: 'GET',
    path: '/api/v1/traces/:id/spans',
    tag: 'Traces',
    summary: "A page of the trace's spans",
    auth: 'apiKey',
    params: traceId,
    query: withMinSeq(schemaOf(SpanPageQuery)),
    responses: { 200: ok(body.cursorPage(body.PAGE_SPAN)) },
  },
  {
    method: 'GET',
    path: '/api/v1/traces/:id/spans/:spanId',
    tag: 'Traces',
    summary: 'One span whole, with the fields a page cuts',
    auth: 'apiKey',
    params: { ...traceId, spanId: 'The span: its UUID, OTel hex id or the id the client gave it.' },
    query: MIN_SEQ,
    responses: { 200: ok(body.SPAN) },
  },
  {
    method: 'GET',
    path: '/api/v1/traces/:id/scores',
    tag: 'Traces',
    summary: "A page of the trace's scores",
    auth: 'apiKey',
    params: traceId,
    query: withMinSeq(schemaOf(ScorePageQuery)),
    responses: { 200: ok(body.cursorPage(body.SCORE)) },
  },
  {
    method: 'GET',
    path: '/api/v1/traces/export',
    tag: 'Traces',
    summary: 'Every trace matching the filters, streamed as JSONL or CSV',
    description: exportDescription,
    auth: 'apiKey',
    query: TraceExportQueryDto,
    responses: exportResponses,
  },
  {
    method: 'GET',
    path: '/api/v1/projects/:projectId/traces/export',
    tag: 'Traces',
    summary: "A project's trace export with a dashboard session (the trace list's Export buttons)",
    description: `${exportDescription} Counted in the client address's rate-limit bucket.`,
    auth: 'session',
    params: { projectId: "The project's UUID, of one of the user's organizations." },
    query: TraceExportQueryDto,
    responses: { ...exportResponses, 403: { description: "FORBIDDEN: the project is not of one of the user's organizations" } },
  },
  {
    method: 'GET',
    path: '/api/v1/sessions',
    tag: 'Traces',
    summary: 'List sessions (traces grouped by sessionId), latest first',
    auth: 'apiKey',
    query: withMinSeq(schemaOf(SessionListFields)),
    responses: { 200: ok(body.cursorPage(body.SESSION_SUMMARY)) },
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/:id',
    tag: 'Traces',
    summary: 'One session with a page of its traces',
    auth: 'apiKey',
    params: { id: "The session's id." },
    query: withMinSeq(schemaOf(PageFields)),
    responses: { 200: ok(body.SESSION) },
  },
  {
    method: 'GET',
    path: '/api/v1/users',
    tag: 'Traces',
    summary: 'List users (traces grouped by userId), latest first',
    auth: 'apiKey',
    query: withMinSeq(schemaOf(GroupFilterFields)),
    responses: { 200: ok(body.cursorPage(body.USER_SUMMARY)) },
  },
  {
    method: 'GET',
    path: '/api/v1/costs/unpriced',
    tag: 'Costs',
    summary: 'Usage no price covers, by model',
    auth: 'apiKey',
    query: UnpricedQueryFields,
    responses: { 200: ok(body.UNPRICED_USAGE) },
  },

  // Routing and prompts.
  {
    method: 'POST',
    path: '/api/v1/route-model',
    tag: 'Routing',
    summary: "Choose a model among candidates from the project's recent calls",
    auth: 'apiKey',
    body: RouteModelRequest,
    requestExample: { candidates: ['gpt-4o', 'gpt-4o-mini'] },
    responses: { 200: ok(body.ROUTE_DECISION, 'The chosen model, why, and each candidate ranked') },
  },
  {
    method: 'POST',
    path: '/api/v1/prompt-templates',
    tag: 'Prompts',
    summary: 'Push a new version of a prompt template',
    auth: 'apiKey',
    body: PromptVersionBody,
    requestExample: { name: 'greeting', template: 'Hello {{name}}', labels: ['production'] },
    responses: {
      201: {
        description: 'Created',
        schema: body.PROMPT_TEMPLATE,
        example: {
          name: 'greeting',
          version: 1,
          template: 'Hello {{name}}',
          labels: ['production'],
          config: {},
          commitMessage: null,
          createdAt: '2026-01-15T10:00:00.000Z',
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/v1/prompt-templates',
    tag: 'Prompts',
    summary: 'One version of a template (by name, version or label), or a page of the templates',
    auth: 'apiKey',
    query: PROMPT_QUERY,
    responses: {
      200: ok({ anyOf: [body.PROMPT_TEMPLATE, body.cursorPage({ type: 'object' })] }),
      304: notModified,
    },
  },

  // Datasets.
  {
    method: 'GET',
    path: '/api/v1/datasets',
    tag: 'Datasets',
    summary: 'List datasets',
    auth: 'apiKey',
    query: PageQuery,
    responses: { 200: ok(body.numberedPage(body.DATASET)) },
  },
  {
    method: 'POST',
    path: '/api/v1/datasets',
    tag: 'Datasets',
    summary: 'Create a dataset, or update the one of that name',
    auth: 'apiKey',
    body: DatasetBody,
    requestExample: { name: 'capitals', description: 'one question per country' },
    responses: {
      201: {
        description: 'Saved',
        schema: body.DATASET,
        example: {
          id: '334d52cc-6d67-4d84-bd94-5996d9d46298',
          name: 'capitals',
          description: 'one question per country',
          metadata: null,
          createdAt: '2026-01-15T10:00:00.000Z',
          updatedAt: '2026-01-15T10:00:00.000Z',
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/v1/datasets/:name',
    tag: 'Datasets',
    summary: 'One dataset',
    auth: 'apiKey',
    params: datasetName,
    responses: { 200: ok(body.DATASET) },
  },
  {
    method: 'GET',
    path: '/api/v1/datasets/:name/items',
    tag: 'Datasets',
    summary: "A page of the dataset's items, as of `version` when given",
    auth: 'apiKey',
    params: datasetName,
    query: ItemListQuery,
    responses: { 200: ok(body.numberedPage(body.DATASET_ITEM)) },
  },
  {
    method: 'POST',
    path: '/api/v1/datasets/:name/items',
    tag: 'Datasets',
    summary: 'Add or update items (idempotent by id): one, or `{items: [...]}` of up to 1,000',
    auth: 'apiKey',
    params: datasetName,
    body: DATASET_ITEMS_REQUEST,
    requestExample: { id: 'capital-France', input: { country: 'France' }, expectedOutput: 'Paris' },
    responses: { 201: { description: 'Stored', schema: body.ITEMS_ACCEPTED, example: { accepted: 1, ids: ['capital-France'] } } },
  },
  {
    method: 'GET',
    path: '/api/v1/datasets/:name/runs',
    tag: 'Datasets',
    summary: "A page of the dataset's runs",
    auth: 'apiKey',
    params: datasetName,
    query: PageQuery,
    responses: { 200: ok(body.numberedPage(body.DATASET_RUN)) },
  },
  {
    method: 'GET',
    path: '/api/v1/datasets/:name/runs/:runName',
    tag: 'Datasets',
    summary: "A run's results: each item's output, scores, latency and cost, and their aggregates",
    auth: 'apiKey',
    params: { ...datasetName, runName: "The run's name." },
    query: withMinSeq(schemaOf(RunResultsQuery)),
    responses: { 200: ok(body.RUN_RESULTS) },
  },

  // Langfuse-compatible routes.
  {
    method: 'POST',
    path: '/api/public/ingestion',
    tag: 'Langfuse',
    summary: "Langfuse's batch ingestion: one status per event",
    auth: 'langfuse',
    body: LANGFUSE_BATCH,
    responses: { 207: { description: 'Multi-Status: each event stored or refused', schema: body.LANGFUSE_INGESTION } },
  },
  {
    method: 'POST',
    path: '/api/public/otel/v1/traces',
    tag: 'Langfuse',
    summary: "OTLP/HTTP JSON spans on Langfuse's path",
    auth: 'langfuse',
    body: OTLP_TRACES,
    responses: { 200: ok(body.OTLP_ACCEPTED, 'Stored') },
  },
  {
    method: 'GET',
    path: '/api/public/v2/prompts/:name',
    tag: 'Langfuse',
    summary: "Fetch a prompt as Langfuse's SDKs do (`production` label unless told)",
    auth: 'langfuse',
    params: { name: "The prompt's name (URL-encoded; may hold `/`)." },
    query: LANGFUSE_PROMPT_QUERY,
    responses: {
      200: ok(body.LANGFUSE_PROMPT),
      304: notModified,
      404: { description: "Not found, in Langfuse's error body", schema: body.LANGFUSE_ERROR },
    },
  },
  {
    method: 'GET',
    path: '/api/public/models',
    tag: 'Langfuse',
    summary: 'List model definitions, the built-in ones included',
    auth: 'langfuse',
    query: LangfuseModelsPage,
    responses: { 200: ok(body.numberedPage(body.LANGFUSE_MODEL)) },
  },
  {
    method: 'POST',
    path: '/api/public/models',
    tag: 'Langfuse',
    summary: 'Create a model definition',
    auth: 'langfuse',
    body: LangfuseModelInput,
    requestExample: { modelName: 'mine', matchPattern: '(?i)^mine$', unit: 'TOKENS', inputPrice: 1e-6 },
    responses: { 200: ok(body.LANGFUSE_MODEL, 'Created') },
  },
  {
    method: 'GET',
    path: '/api/public/models/:id',
    tag: 'Langfuse',
    summary: 'One model definition',
    auth: 'langfuse',
    params: { id: "The model definition's id." },
    responses: { 200: ok(body.LANGFUSE_MODEL) },
  },
  {
    method: 'DELETE',
    path: '/api/public/models/:id',
    tag: 'Langfuse',
    summary: "Delete a project's own model definition",
    auth: 'langfuse',
    params: { id: "The model definition's id." },
    responses: { 200: ok(body.LANGFUSE_MESSAGE, 'Deleted') },
  },
  {
    method: 'GET',
    path: '/api/public/score-configs',
    tag: 'Langfuse',
    summary: 'List score configs',
    auth: 'langfuse',
    query: LangfusePageQuery,
    responses: { 200: ok(body.numberedPage(body.LANGFUSE_SCORE_CONFIG)) },
  },
  {
    method: 'POST',
    path: '/api/public/score-configs',
    tag: 'Langfuse',
    summary: 'Create a score config',
    auth: 'langfuse',
    body: LANGFUSE_SCORE_CONFIG_REQUEST,
    requestExample: { name: 'quality', dataType: 'NUMERIC', minValue: 0, maxValue: 1 },
    responses: { 200: ok(body.LANGFUSE_SCORE_CONFIG, 'Created') },
  },
  {
    method: 'GET',
    path: '/api/public/score-configs/:id',
    tag: 'Langfuse',
    summary: 'One score config',
    auth: 'langfuse',
    params: { id: "The score config's id." },
    responses: {
      200: ok(body.LANGFUSE_SCORE_CONFIG),
      404: { description: "Not found, in Langfuse's error body", schema: body.LANGFUSE_ERROR },
    },
  },
  {
    method: 'POST',
    path: '/api/public/v2/datasets',
    tag: 'Langfuse',
    summary: 'Create a dataset, or update the one of that name',
    auth: 'langfuse',
    body: DatasetBody,
    responses: { 200: ok(body.LANGFUSE_DATASET, 'Saved') },
  },
  {
    method: 'GET',
    path: '/api/public/v2/datasets',
    tag: 'Langfuse',
    summary: 'List datasets',
    auth: 'langfuse',
    query: PageQuery,
    responses: { 200: ok(body.numberedPage(body.LANGFUSE_DATASET)) },
  },
  {
    method: 'GET',
    path: '/api/public/v2/datasets/:name',
    tag: 'Langfuse',
    summary: 'One dataset',
    auth: 'langfuse',
    params: datasetName,
    responses: { 200: ok(body.LANGFUSE_DATASET) },
  },
  {
    method: 'POST',
    path: '/api/public/dataset-items',
    tag: 'Langfuse',
    summary: 'Create or update (by id) an item of the dataset the body names',
    auth: 'langfuse',
    body: LangfuseDatasetItemBody,
    responses: { 200: ok(body.LANGFUSE_DATASET_ITEM, 'Saved') },
  },
  {
    method: 'GET',
    path: '/api/public/dataset-items',
    tag: 'Langfuse',
    summary: "A page of a dataset's items",
    auth: 'langfuse',
    query: LangfuseItemListQuery,
    responses: { 200: ok(body.numberedPage(body.LANGFUSE_DATASET_ITEM)) },
  },
  {
    method: 'GET',
    path: '/api/public/dataset-items/:id',
    tag: 'Langfuse',
    summary: 'One dataset item',
    auth: 'langfuse',
    params: { id: "The item's id." },
    responses: { 200: ok(body.LANGFUSE_DATASET_ITEM) },
  },
  {
    method: 'POST',
    path: '/api/public/dataset-run-items',
    tag: 'Langfuse',
    summary: 'Link a dataset item to the trace a run produced for it (the first item creates the run)',
    auth: 'langfuse',
    body: RunItemBody,
    responses: { 200: ok(body.LANGFUSE_RUN_ITEM, 'Linked') },
  },
  {
    method: 'GET',
    path: '/api/public/datasets/:datasetName/runs',
    tag: 'Langfuse',
    summary: "A page of a dataset's runs",
    auth: 'langfuse',
    params: { datasetName: "The dataset's name." },
    query: PageQuery,
    responses: { 200: ok(body.numberedPage(body.DATASET_RUN)) },
  },
  {
    method: 'GET',
    path: '/api/public/datasets/:datasetName/runs/:runName',
    tag: 'Langfuse',
    summary: 'One run with its run items',
    auth: 'langfuse',
    params: { datasetName: "The dataset's name.", runName: "The run's name." },
    responses: { 200: ok(body.LANGFUSE_RUN) },
  },
  {
    method: 'GET',
    path: '/api/public/projects',
    tag: 'Langfuse',
    summary: "The API key's project",
    auth: 'langfuse',
    responses: { 200: ok(body.LANGFUSE_PROJECTS) },
  },

  // MCP (docs/mcp.md).
  {
    method: 'POST',
    path: '/api/v1/mcp',
    tag: 'MCP',
    summary: "The MCP server of the API key's project: one JSON-RPC message (or a batch) per POST",
    description:
      'Streamable HTTP without sessions, answered as JSON: send `Accept: application/json, text/event-stream`. ' +
      "The tools (`search_traces`, `get_trace`, …) and their arguments are what `tools/list` answers; a tool's failure is a result with `isError: true`.",
    auth: 'apiKey',
    body: MCP_REQUEST,
    requestExample: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    responses: {
      200: {
        description: 'The JSON-RPC response: `result`, or `error` for a method or arguments MCP refuses',
        schema: body.MCP_ANSWER,
        example: { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'search_traces', inputSchema: { type: 'object' } }] } },
      },
      202: { description: 'Accepted: the message was a notification; no body' },
      400: mcpRefused("Not JSON-RPC (`-32700`, `-32600`), or the API's VALIDATION_ERROR"),
      406: { description: 'Not Acceptable: `Accept` must name application/json and text/event-stream', schema: body.JSON_RPC_ERROR },
      413: mcpRefused('Body too large'),
      415: mcpRefused('Content-Type must be application/json'),
    },
  },
  {
    method: 'GET',
    path: '/api/v1/mcp',
    tag: 'MCP',
    summary: 'No server-sent stream: a stateless server answers 405',
    auth: 'apiKey',
    responses: mcpNotAllowed,
  },
  {
    method: 'DELETE',
    path: '/api/v1/mcp',
    tag: 'MCP',
    summary: 'No session to end: 405',
    auth: 'apiKey',
    responses: mcpNotAllowed,
  },

  // Dashboard sessions.
  {
    method: 'POST',
    path: '/api/v1/auth/login',
    tag: 'Auth',
    summary: 'Log in with email and password: an access and a refresh token',
    auth: 'none',
    body: LoginDto,
    requestExample: { email: 'ada@example.com', password: 'correct horse battery staple' },
    responses: { 200: ok(body.AUTH_SESSION), 401: { description: 'Wrong email or password' } },
  },
  {
    method: 'POST',
    path: '/api/v1/auth/refresh',
    tag: 'Auth',
    summary: 'Trade a refresh token for a new pair (the old one is spent)',
    auth: 'none',
    body: RefreshDto,
    responses: { 200: ok(body.AUTH_SESSION), 401: { description: 'Unknown, spent or expired refresh token' } },
  },
  {
    method: 'POST',
    path: '/api/v1/auth/logout',
    tag: 'Auth',
    summary: "End the session of the access token's refresh family",
    auth: 'session',
    responses: { 200: ok(body.AUTH_LOGGED_OUT) },
  },

  // Operations.
  {
    method: 'GET',
    path: '/api/v1/health',
    tag: 'Operations',
    summary: 'Liveness, Postgres and NATS reachability, projection lag',
    auth: 'none',
    responses: {
      200: {
        description: 'OK',
        schema: body.HEALTH,
        example: {
          status: 'ok',
          checks: { postgres: 'ok', nats: 'ok' },
          projections: { telemetry: { lag: 0 }, usage: { lag: 0 }, audit: { lag: 0 } },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics (for an internal network)',
    auth: 'none',
    responses: { 200: { description: 'Prometheus text exposition', mediaType: 'text/plain', schema: { type: 'string' } } },
  },
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    tag: 'Operations',
    summary: 'This document',
    auth: 'none',
    responses: { 200: ok({ type: 'object' }, 'OpenAPI 3.1') },
  },
  {
    method: 'GET',
    path: '/docs',
    tag: 'Operations',
    summary: 'The API reference, as an HTML page',
    auth: 'none',
    responses: { 200: { description: 'HTML', mediaType: 'text/html', schema: { type: 'string' } } },
  },
];
