import type { usageReport } from '@app/domain';
import type { Monitor, MonitorHistoryEntry } from '@app/persistence';
import type { Organization } from '../commands/orgs.command';
import type { LoggedIn } from '../session';
import type { TraceFilter } from './trace-filter';

/** The dashboard RPC procedures the TUI calls, with the shapes of CONTRACT and RPC-SHAPES. */

export interface Project {
  id: string;
  name: string;
  orgId: string;
}

/** A project with the organization it belongs to, as the picker lists them. */
export interface ProjectChoice {
  project: Project;
  org: Organization;
}

export interface TraceSummary {
  id: string;
  name: string | null;
  timestamp: string;
  userId: string | null;
  tags: string[] | null;
  input: unknown;
  output: unknown;
  spanCount: number;
  totalTokens: number | null;
  totalCost: number | null;
  latencyMs: number | null;
}

export interface Span {
  id: string;
  parentId: string | null;
  name: string;
  type: string;
  /** What the span does (`chat`, `execute_tool`…), beside its type. */
  operation: string | null;
  model: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  cost: number | null;
  input: unknown;
  output: unknown;
  startTime: string;
  endTime: string | null;
  level: string | null;
  statusMessage: string | null;
  /** Fields a page left out for their size, with their size in bytes: `span` answers them whole. */
  truncated?: Record<string, number>;
}

export interface Score {
  id: string;
  spanId: string | null;
  name: string;
  value: number | string | boolean;
}

/** A trace with its first page of spans and scores (`trace.get`); `trace.spans` pages on from `nextSpansCursor`. */
export interface Trace extends TraceSummary {
  spans: Span[];
  scores: Score[];
  scoreCount: number;
  nextSpansCursor: string | null;
}

/** A score summed up by name and source, as the session and user reads give them. */
export interface ScoreSummary {
  name: string | null;
  source: string | null;
  value: number | null;
  count: number;
}

/** A session or a user with its totals (`traceSession.list`, `traceUser.list`). */
export interface GroupSummary {
  id: string;
  firstTraceAt: string;
  lastTraceAt: string;
  traceCount: number;
  spanCount: number;
  durationMs: number | null;
  totalTokens: number | null;
  totalCost: number | null;
  scores: ScoreSummary[];
  userIds?: string[];
  sessionCount?: number;
}

/** `traceSession.get`: the session's totals and a page of its traces in time order. */
export interface SessionDetail extends GroupSummary {
  traces: (TraceSummary & { sessionId: string | null })[];
  meta: { nextCursor: string | null };
}

export type GroupKind = 'session' | 'user';

export interface Page<T> {
  data: T[];
  meta: { nextCursor: string | null };
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedKey {
  id: string;
  name: string;
  prefix: string;
  apiKey: string;
  createdAt: string;
}

export type Usage = ReturnType<typeof usageReport>;

/**
 * A monitor as `monitor.list` answers it, and one change of its state as `monitor.history`
 * does: the store's own types, so the compiler holds the screen to what the API sends.
 */
export type { Monitor, MonitorHistoryEntry } from '@app/persistence';

export class SpanlogRpc {
  constructor(private readonly me: LoggedIn) {}

  /** Every project of every organization the user belongs to. */
  async projects(): Promise<ProjectChoice[]> {
    const organizations = await this.me.query<Organization[]>('organization.list');
    const lists = await Promise.all(organizations.map((org) => this.me.query<Project[]>('project.list', { orgId: org.id }).then((projects) => projects.map((project) => ({ project, org })))));
    return lists.flat();
  }

  traces(projectId: string, filter: TraceFilter, limit: number, cursor?: string): Promise<Page<TraceSummary>> {
    return this.me.query<Page<TraceSummary>>('trace.list', { projectId, limit, ...(cursor ? { cursor } : {}), ...filter });
  }

  trace(projectId: string, id: string): Promise<Trace> {
    return this.me.query<Trace>('trace.get', { projectId, id });
  }

  /** A page of the project's sessions or users, the most recently active first. */
  groups(kind: GroupKind, projectId: string, limit: number, cursor?: string): Promise<Page<GroupSummary>> {
    return this.me.query<Page<GroupSummary>>(kind === 'session' ? 'traceSession.list' : 'traceUser.list', { projectId, limit, ...(cursor ? { cursor } : {}) });
  }

  session(projectId: string, id: string, limit: number, cursor?: string): Promise<SessionDetail> {
    return this.me.query<SessionDetail>('traceSession.get', { projectId, id, limit, ...(cursor ? { cursor } : {}) });
  }

  user(projectId: string, id: string): Promise<GroupSummary> {
    return this.me.query<GroupSummary>('traceUser.get', { projectId, id });
  }

  /** The page of a trace's spans after `cursor`. */
  traceSpans(projectId: string, traceId: string, cursor: string): Promise<Page<Span>> {
    return this.me.query<Page<Span>>('trace.spans', { projectId, traceId, cursor });
  }

  /** One span whole, the fields a page cut included. */
  span(projectId: string, traceId: string, spanId: string): Promise<Span> {
    return this.me.query<Span>('trace.span', { projectId, traceId, spanId });
  }

  keys(projectId: string): Promise<ApiKey[]> {
    return this.me.query<ApiKey[]>('apiKey.list', { projectId });
  }

  createKey(projectId: string, name: string): Promise<CreatedKey> {
    return this.me.mutate<CreatedKey>('apiKey.create', { projectId, name });
  }

  revokeKey(projectId: string, id: string): Promise<{ id: string; revoked: boolean }> {
    return this.me.mutate('apiKey.revoke', { projectId, id });
  }

  usage(orgId: string): Promise<Usage> {
    return this.me.query<Usage>('usage.get', { orgId });
  }

  monitors(projectId: string): Promise<Monitor[]> {
    return this.me.query<Monitor[]>('monitor.list', { projectId });
  }

  /** A monitor's latest changes of state, newest first (the first page). */
  monitorHistory(projectId: string, id: string): Promise<Page<MonitorHistoryEntry>> {
    return this.me.query<Page<MonitorHistoryEntry>>('monitor.history', { projectId, id });
  }
}
