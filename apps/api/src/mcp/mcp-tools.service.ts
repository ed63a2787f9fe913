import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { APP_CONFIG, type AppConfig, LOGGER } from '@app/config';
import {
  DATASET_LIMITS,
  DomainError,
  type DtoClass,
  MCP_LIMITS,
  TRACE_READ_LIMITS,
  isJsonObject,
  overviewTotals,
  schemaOf,
  validateDto,
  validateOverviewRange,
  validationError,
} from '@app/domain';
import type { ApiKeyPrincipal } from '@app/persistence';
import { DatasetsService, pageRequest } from '../datasets/datasets.service';
import { IngestService } from '../ingestion/ingest.service';
import { PromptTemplatesService } from '../prompts/prompt-templates.service';
import { StatsService } from '../stats/stats.service';
import { TracesService } from '../traces/traces.service';
import { toAgentSpan, toAgentTrace } from './agent-trace';
import {
  CreateScoreArgs,
  GetDatasetRunArgs,
  GetPromptArgs,
  GetSpanArgs,
  GetTraceArgs,
  ListDatasetsArgs,
  ListScoresArgs,
  ProjectOverviewArgs,
  SearchTracesArgs,
} from './mcp-tool-args.dto';

/** One tool: what it does, its arguments' DTO (schema and reader), and its answer for the key's project. */
interface Tool<A extends object> {
  description: string;
  args: DtoClass<A>;
  run: (principal: ApiKeyPrincipal, args: A, requestId: string) => Promise<object>;
  /** Offered only where the deployment turns write tools on (SPANLOG_MCP_WRITE_TOOLS). */
  writes?: true;
}

const tool = <A extends object>(t: Tool<A>) => t as Tool<object>;

/** The pages an agent's reads take: MCP's field and page bounds, cursors named as the tools' arguments. */
const MCP_PAGE = { bytes: TRACE_READ_LIMITS.mcp } as const;

/**
 * The MCP server's tools (docs/mcp.md) over the services the REST routes call: an API key's
 * project only, its arguments read by the REST routes' rules, the API's errors as tool errors.
 */
@Injectable()
export class McpToolsService {
  private readonly tools: Record<string, Tool<object>>;

  constructor(
    private readonly traces: TracesService,
    private readonly prompts: PromptTemplatesService,
    private readonly datasets: DatasetsService,
    private readonly stats: StatsService,
    private readonly ingest: IngestService,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    const all = this.define();
    this.tools = Object.fromEntries(Object.entries(all).filter(([, t]) => config.mcpWriteTools || !t.writes));
  }

  private define(): Record<string, Tool<object>> {
    return {
      search_traces: tool({
        description:
          "Lists the project's traces, newest first, by the trace list's filters (name, tags, userId, sessionId, environment, " +
          "fromTimestamp/toTimestamp, spanType, model, operation, scoreName with minScore/maxScore); `cursor` is the previous page's meta.nextCursor.",
        args: SearchTracesArgs,
        run: ({ projectId }, args) => this.traces.list(projectId, args),
      }),
      get_trace: tool({
        description:
          `A trace and a page of its span tree (each span's id, parentId, type, operation, name, model, tokens, cost, times), ` +
          `input and output cut to ${MCP_LIMITS.fieldChars} characters with \`truncated\` naming each cut field's full size in bytes ` +
          '(get_span reads one whole); `nextSpansCursor` pages the spans.',
        args: GetTraceArgs,
        run: async ({ projectId }, { traceId, spansLimit, spansCursor }) => {
          const trace = await this.traces.get(projectId, traceId, {
            ...MCP_PAGE,
            limit: spansLimit ?? MCP_LIMITS.spans.default,
            cursor: spansCursor,
            cursorField: 'spansCursor',
          });
          const { spans, scores: _scores, nextScoresCursor: _next, ...rest } = trace;
          return { ...toAgentTrace(rest), spans: spans.map(toAgentSpan) };
        },
      }),
      get_span: tool({
        description: 'One span whole, every field uncut; `fields` picks some of them (`["input"]` reads one large field alone).',
        args: GetSpanArgs,
        run: async ({ projectId }, { traceId, spanId, fields }) => {
          const span = await this.traces.span(projectId, traceId, spanId);
          return fields ? Object.fromEntries(fields.map((f) => [f, span[f]])) : span;
        },
      }),
      list_scores: tool({
        description:
          "A page of a trace's scores (name, value, dataType, comment, source, spanId), oldest first; `cursor` is meta.nextCursor.",
        args: ListScoresArgs,
        run: ({ projectId }, { traceId, limit, cursor }) =>
          this.traces.scores(projectId, traceId, { ...MCP_PAGE, limit, cursor, cursorField: 'cursor' }),
      }),
      get_prompt: tool({
        description: 'A version of a prompt template by name: `version` or `label`, else the one labelled production, else the latest.',
        args: GetPromptArgs,
        run: async ({ projectId }, { name, version, label }) => {
          // As GET /api/v1/prompt-templates?name= reads it: its parameters are query text.
          const answer = await this.prompts.get(projectId, { name, version: version === undefined ? undefined : String(version), label });
          return answer.kind === 'version' ? answer.version : answer.page;
        },
      }),
      list_datasets: tool({
        description: "A page of the project's datasets (`page` from 1, `limit`).",
        args: ListDatasetsArgs,
        run: ({ projectId }, args) => this.datasets.list(projectId, pageRequest(args)),
      }),
      get_dataset_run: tool({
        description: "A dataset run's results: per item its trace's output, latency, tokens, cost and scores, and the run's aggregates.",
        args: GetDatasetRunArgs,
        run: ({ projectId }, { datasetName, runName, ...page }) =>
          this.datasets.runResults(projectId, datasetName, runName, pageRequest(page, DATASET_LIMITS.runItemsPage.default)),
      }),
      project_overview: tool({
        description:
          'The dashboard overview from `from` to `to` (ISO 8601): `totals` (traces, spans, errors, costUsd, tokens) and the series, models and span types.',
        args: ProjectOverviewArgs,
        run: async ({ projectId }, args) => {
          const overview = await this.stats.overviewOf(projectId, validateOverviewRange({ ...args }));
          return { totals: overviewTotals(overview), ...overview };
        },
      }),
      create_score: tool({
        description:
          'Records a score of a trace or span, as POST /api/v1/scores (name, value, traceId, spanId, comment, dataType, source).',
        args: CreateScoreArgs,
        writes: true,
        run: async (principal, args, requestId) => {
          const body = { ...args };
          return (await this.ingest.ingestScores(principal, requestId, Buffer.from(JSON.stringify(body)), body)).body;
        },
      }),
    };
  }

  /** A server for one request of `principal` (stateless: nothing is kept between requests). */
  serverFor(principal: ApiKeyPrincipal, requestId: string): Server {
    const server = new Server({ name: 'spanlog', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: Object.entries(this.tools).map(([name, t]) => ({
        name,
        description: t.description,
        inputSchema: schemaOf(t.args) as { type: 'object' },
        annotations: { readOnlyHint: !t.writes },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, ({ params }) => this.call(principal, requestId, params.name, params.arguments));
    return server;
  }

  private async call(principal: ApiKeyPrincipal, requestId: string, name: string, args: unknown): Promise<CallToolResult> {
    const t = Object.hasOwn(this.tools, name) ? this.tools[name] : undefined;
    if (!t)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(name)}; the tools are ${Object.keys(this.tools).join(', ')}`,
      );
    try {
      const checked = validateDto(t.args, isJsonObject(args) ? args : {}, 'arguments');
      if (!checked.ok) throw validationError(checked.message);
      const result = await t.run(principal, checked.value, requestId);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    } catch (err) {
      if (!(err instanceof DomainError)) {
        this.logger.error({ err, reqId: requestId, tool: name }, 'MCP tool failed');
        return toolError('INTERNAL_ERROR', 'internal error');
      }
      return toolError(err.code, err.message);
    }
  }
}

/** An MCP tool error: `{error: {code, message}}` with the code and message the REST route would answer. */
function toolError(code: string, message: string): CallToolResult {
  const error = { code, message };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}
