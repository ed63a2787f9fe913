import { Injectable } from '@nestjs/common';
import {
  type JsonObject,
  PROMPT_TEMPLATE_LIMITS,
  type PromptVersion,
  ScorePageQuery,
  SpanPageQuery,
  TRACE_READ_LIMITS,
  TraceReadQuery,
  notFound,
  parsePromptListQuery,
  readPageQuery,
  readPromptName,
  validateFilterValuesQuery,
  validationError,
} from '@app/domain';
import { PromptTemplateStore } from '@app/persistence';
import { type PromptTemplatePage, PromptTemplatesService } from '../prompts/prompt-templates.service';
import { TraceGroupsService } from '../trace-groups/trace-groups.service';
import type { TraceGetInput, TraceListInput, TracePageInput, TraceSpanInput } from '../traces/trace-query.dto';
import { TracesService } from '../traces/traces.service';
import { type Actor, TenancyService } from './tenancy.service';

export interface PromptVersionPage {
  data: PromptVersion[];
  meta: { nextCursor: string | null };
}

const VERSION_CURSOR = /^[1-9][0-9]{0,9}$/;

/**
 * What the dashboard and the terminal UI read of a project with a session: its traces and its
 * prompt templates, the same answers as the REST reads (one query, one mapping), once the
 * caller's membership of the project's organization is checked.
 */
@Injectable()
export class ProjectReadsService {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly traces: TracesService,
    private readonly prompts: PromptTemplatesService,
    private readonly promptStore: PromptTemplateStore,
    private readonly groups: TraceGroupsService,
  ) {}

  async listTraces(actor: Actor, { projectId, ...query }: TraceListInput) {
    await this.tenancy.requireProjectRole(actor, projectId);
    return this.traces.list(projectId, query);
  }

  /** `trace.filterValues`: the query past its projectId is the domain's (field, prefix, limit). */
  async filterValues(actor: Actor, projectId: string, query: unknown) {
    const q = validateFilterValuesQuery(query);
    await this.tenancy.requireProjectRole(actor, projectId);
    return this.traces.filterValues(projectId, q, Date.now());
  }

  /** The trace and a page of its spans and scores; the input's `spansLimit` and `spansCursor` page the spans as on REST. */
  async getTrace(actor: Actor, input: TraceGetInput) {
    const page = readPageQuery(TraceReadQuery, input as unknown as JsonObject);
    await this.tenancy.requireProjectRole(actor, input.projectId);
    return this.traces.get(input.projectId, input.id, { limit: page.spansLimit, cursor: page.spansCursor, cursorField: 'spansCursor', bytes: TRACE_READ_LIMITS.rpc });
  }

  async traceSpans(actor: Actor, input: TracePageInput) {
    const page = readPageQuery(SpanPageQuery, input as unknown as JsonObject);
    await this.tenancy.requireProjectRole(actor, input.projectId);
    return this.traces.spans(input.projectId, input.traceId, { ...page, cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rpc });
  }

  async traceSpan(actor: Actor, { projectId, traceId, spanId }: TraceSpanInput) {
    await this.tenancy.requireProjectRole(actor, projectId);
    return this.traces.span(projectId, traceId, spanId);
  }

  async traceScores(actor: Actor, input: TracePageInput) {
    const page = readPageQuery(ScorePageQuery, input as unknown as JsonObject);
    await this.tenancy.requireProjectRole(actor, input.projectId);
    return this.traces.scores(input.projectId, input.traceId, { ...page, cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rpc });
  }

  /** `traceSession.*` / `traceUser.*`: the query past its projectId goes on as sent, for the domain's rules. */
  async listSessions(actor: Actor, projectId: string, query: unknown) {
    await this.tenancy.requireProjectRole(actor, projectId);
    return this.groups.listSessions(projectId, query);
  }

  async getSession(actor: Actor, projectId: string, { id, ...page }: Record<string, unknown>) {
    await this.tenancy.requireProjectRole(actor, projectId);
    return this.groups.getSession(projectId, id, page);
  }

  async listUsers(actor: Actor, projectId: string, query: unknown) {
    await this.tenancy.requireProjectRole(actor, projectId);
    return this.groups.listUsers(projectId, query);
  }

  async getUser(actor: Actor, projectId: string, id: unknown) {
    await this.tenancy.requireProjectRole(actor, projectId);
    return this.groups.getUser(projectId, id);
  }

  async listPrompts(actor: Actor, projectId: string, cursor: string | undefined): Promise<PromptTemplatePage> {
    await this.tenancy.requireProjectRole(actor, projectId);
    const { after, limit } = parsePromptListQuery({ cursor });
    return this.prompts.page(projectId, after, limit);
  }

  /** One name's versions, newest first, a page at a time; the cursor is the last version shown. */
  async promptVersions(actor: Actor, projectId: string, rawName: string, cursor: string | undefined): Promise<PromptVersionPage> {
    const name = readPromptName(rawName);
    if (cursor !== undefined && !VERSION_CURSOR.test(cursor)) throw validationError('cursor: not a cursor returned by prompt.versions');
    await this.tenancy.requireProjectRole(actor, projectId);
    const limit = PROMPT_TEMPLATE_LIMITS.list.default;
    const rows = await this.promptStore.versions(projectId, name, cursor === undefined ? null : Number(cursor), limit + 1);
    if (!rows.length && cursor === undefined) throw notFound(`no prompt template is named "${name}" in this project`);
    const data = rows.slice(0, limit);
    const last = data[data.length - 1];
    return { data, meta: { nextCursor: rows.length > limit && last ? String(last.version) : null } };
  }
}
