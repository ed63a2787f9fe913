import type { RpcOutputs } from '../rpc-client';
import type { LoggedIn } from '../session';
import type { TraceFilter } from './trace-filter';

/**
 * The dashboard RPC procedures the TUI calls, and the fields of their answers it shows. Each
 * shape is picked from what the API's router answers (`RpcOutputs`), so a field the server
 * renames or retypes fails the type check instead of the screen.
 */

type Organization = RpcOutputs['organization']['list'][number];
type Project = RpcOutputs['project']['list'][number];

/** A project with the organization it belongs to, as the picker lists them. */
export interface ProjectChoice {
  project: Project;
  org: Organization;
}

type TraceRow = RpcOutputs['trace']['list']['data'][number];
type TraceDetail = RpcOutputs['trace']['get'];

export type TraceSummary = Pick<
  TraceRow,
  'id' | 'name' | 'timestamp' | 'userId' | 'tags' | 'input' | 'output' | 'spanCount' | 'totalTokens' | 'totalCost' | 'latencyMs'
>;

/** A span as a page of `trace.get` or `trace.spans` shows it, or `trace.span` whole (without `truncated`). */
export type Span = Pick<
  RpcOutputs['trace']['span'],
  | 'id'
  | 'parentId'
  | 'name'
  | 'type'
  | 'operation'
  | 'model'
  | 'promptTokens'
  | 'completionTokens'
  | 'cost'
  | 'input'
  | 'output'
  | 'startTime'
  | 'endTime'
  | 'level'
  | 'statusMessage'
> &
  Pick<TraceDetail['spans'][number], 'truncated'>;

export type Score = Pick<TraceDetail['scores'][number], 'id' | 'spanId' | 'name' | 'value'>;

/** A trace with its first page of spans and scores (`trace.get`); `trace.spans` pages on from `nextSpansCursor`. */
export type Trace = TraceSummary & Pick<TraceDetail, 'scoreCount' | 'nextSpansCursor'> & { spans: Span[]; scores: Score[] };

type SessionSummary = RpcOutputs['traceSession']['list']['data'][number];
type UserSummary = RpcOutputs['traceUser']['list']['data'][number];

/** A session or a user with its totals: the fields both have, and each one's own. */
export type GroupSummary = Omit<SessionSummary, 'userIds'> & Partial<Pick<SessionSummary, 'userIds'> & Pick<UserSummary, 'sessionCount'>>;
export type ScoreSummary = GroupSummary['scores'][number];

/** `traceSession.get`: the session's totals and a page of its traces in time order. */
export type SessionDetail = RpcOutputs['traceSession']['get'];

export type ApiKey = RpcOutputs['apiKey']['list'][number];
export type CreatedKey = RpcOutputs['apiKey']['create'];
export type Monitor = RpcOutputs['monitor']['list'][number];
export type MonitorHistoryEntry = RpcOutputs['monitor']['history']['data'][number];

export type GroupKind = 'session' | 'user';

export interface Page<T> {
  data: T[];
  meta: { nextCursor: string | null };
}

/** The project's reads with a page size take their cursor only when there is one. */
const paged = (limit: number, cursor: string | undefined) => ({ limit, ...(cursor ? { cursor } : {}) });

export class SpanlogRpc {
  constructor(private readonly me: LoggedIn) {}

  /** Every project of every organization the user belongs to. */
  async projects(): Promise<ProjectChoice[]> {
    const { rpc } = this.me;
    const organizations = await rpc.organization.list.query();
    const lists = await Promise.all(
      organizations.map((org) =>
        rpc.project.list.query({ orgId: org.id }).then((projects) => projects.map((project) => ({ project, org }))),
      ),
    );
    return lists.flat();
  }

  traces(projectId: string, filter: TraceFilter, limit: number, cursor?: string) {
    return this.me.rpc.trace.list.query({ projectId, ...paged(limit, cursor), ...filter });
  }

  trace(projectId: string, id: string) {
    return this.me.rpc.trace.get.query({ projectId, id });
  }

  // The router types the session and user reads' input by its projectId alone and hands the
  // rest (id, limit, cursor) to the domain's rules: the input goes in as a variable, which the
  // compiler holds to that projectId without refusing the fields it does not declare.

  /** A page of the project's sessions or users, the most recently active first. */
  groups(kind: GroupKind, projectId: string, limit: number, cursor?: string): Promise<Page<GroupSummary>> {
    const input = { projectId, ...paged(limit, cursor) };
    return kind === 'session' ? this.me.rpc.traceSession.list.query(input) : this.me.rpc.traceUser.list.query(input);
  }

  session(projectId: string, id: string, limit: number, cursor?: string): Promise<SessionDetail> {
    const input = { projectId, id, ...paged(limit, cursor) };
    return this.me.rpc.traceSession.get.query(input);
  }

  user(projectId: string, id: string): Promise<GroupSummary> {
    const input = { projectId, id };
    return this.me.rpc.traceUser.get.query(input);
  }

  /** The page of a trace's spans after `cursor`. */
  traceSpans(projectId: string, traceId: string, cursor: string) {
    return this.me.rpc.trace.spans.query({ projectId, traceId, cursor });
  }

  /** One span whole, the fields a page cut included. */
  span(projectId: string, traceId: string, spanId: string) {
    return this.me.rpc.trace.span.query({ projectId, traceId, spanId });
  }

  keys(projectId: string) {
    return this.me.rpc.apiKey.list.query({ projectId });
  }

  createKey(projectId: string, name: string) {
    return this.me.rpc.apiKey.create.mutate({ projectId, name });
  }

  revokeKey(projectId: string, id: string) {
    return this.me.rpc.apiKey.revoke.mutate({ projectId, id });
  }

  usage(orgId: string) {
    return this.me.rpc.usage.get.query({ orgId });
  }

  monitors(projectId: string) {
    return this.me.rpc.monitor.list.query({ projectId });
  }

  /** A monitor's latest changes of state, newest first (the first page). */
  monitorHistory(projectId: string, id: string) {
    return this.me.rpc.monitor.history.query({ projectId, id });
  }
}
