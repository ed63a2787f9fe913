import { Injectable } from '@nestjs/common';
import {
  type JsonObject,
  ScorePageQuery,
  SpanPageQuery,
  TRACE_READ_LIMITS,
  TraceReadQuery,
  readPageQuery,
  validateFilterValuesQuery,
} from '@app/domain';
import { type Actor, AccessService } from '../access/access.service';
import type { TraceGetInput, TraceListInput, TracePageInput, TraceSpanInput } from './trace-query.dto';
import { TracesService } from './traces.service';

/**
 * What the dashboard and the terminal UI read of a project's traces with a session: the same
 * answers as the REST reads (one query, one mapping), once the caller's membership of the
 * project's organization is checked.
 */
@Injectable()
export class TraceReadsService {
  constructor(
    private readonly access: AccessService,
    private readonly traces: TracesService,
  ) {}

  async listTraces(actor: Actor, { projectId, ...query }: TraceListInput) {
    await this.access.requireProjectRole(actor, projectId);
    return this.traces.list(projectId, query);
  }

  /** `trace.filterValues`: the query past its projectId is the domain's (field, prefix, limit). */
  async filterValues(actor: Actor, projectId: string, query: unknown) {
    const q = validateFilterValuesQuery(query);
    await this.access.requireProjectRole(actor, projectId);
    return this.traces.filterValues(projectId, q, Date.now());
  }

  /** The trace and a page of its spans and scores; the input's `spansLimit` and `spansCursor` page the spans as on REST. */
  async getTrace(actor: Actor, input: TraceGetInput) {
    const page = readPageQuery(TraceReadQuery, input as unknown as JsonObject);
    await this.access.requireProjectRole(actor, input.projectId);
    return this.traces.get(input.projectId, input.id, {
      limit: page.spansLimit,
      cursor: page.spansCursor,
      cursorField: 'spansCursor',
      bytes: TRACE_READ_LIMITS.rpc,
    });
  }

  async traceSpans(actor: Actor, input: TracePageInput) {
    const page = readPageQuery(SpanPageQuery, input as unknown as JsonObject);
    await this.access.requireProjectRole(actor, input.projectId);
    return this.traces.spans(input.projectId, input.traceId, { ...page, cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rpc });
  }

  async traceSpan(actor: Actor, { projectId, traceId, spanId }: TraceSpanInput) {
    await this.access.requireProjectRole(actor, projectId);
    return this.traces.span(projectId, traceId, spanId);
  }

  async traceScores(actor: Actor, input: TracePageInput) {
    const page = readPageQuery(ScorePageQuery, input as unknown as JsonObject);
    await this.access.requireProjectRole(actor, input.projectId);
    return this.traces.scores(input.projectId, input.traceId, { ...page, cursorField: 'cursor', bytes: TRACE_READ_LIMITS.rpc });
  }
}
