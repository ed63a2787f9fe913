/**
 * Every query key of the dashboard, by area. A key starts with its area and the project (or
 * organization) it reads, so one `invalidateQueries({ queryKey: keys.x.all(id) })` reaches every
 * page and filter of that area, and a logout's `clear()` leaves nothing of another user.
 */
export const keys = {
  orgProjects: () => ['org-projects'] as const,
  traces: {
    all: (projectId: string) => ['traces', projectId] as const,
    list: (projectId: string, filters: object) => ['traces', projectId, 'list', filters] as const,
    filterValues: (projectId: string, field: string, term: string | null) => ['traces', projectId, 'filter-values', field, term] as const,
    one: (projectId: string, traceId: string) => ['traces', projectId, 'trace', traceId] as const,
    /** Pages after the first, which the trace itself carries with the cursor they start from. */
    spans: (projectId: string, traceId: string, from: string | null | undefined) =>
      ['traces', projectId, 'trace', traceId, 'spans', from] as const,
    span: (projectId: string, traceId: string, spanId: string | undefined) =>
      ['traces', projectId, 'trace', traceId, 'span', spanId] as const,
  },
  sessions: {
    list: (projectId: string, filters: object) => ['sessions', projectId, 'list', filters] as const,
    one: (projectId: string, id: string) => ['sessions', projectId, 'session', id] as const,
  },
  users: {
    list: (projectId: string, filters: object) => ['users', projectId, 'list', filters] as const,
    one: (projectId: string, id: string) => ['users', projectId, 'user', id] as const,
  },
  overview: (projectId: string, range: string, now: number) => ['overview', projectId, range, now] as const,
  costs: {
    unpriced: (projectId: string, range: string, now: number) => ['costs', projectId, 'unpriced', range, now] as const,
  },
  monitors: {
    all: (projectId: string) => ['monitors', projectId] as const,
    history: (projectId: string, id: string) => ['monitors', projectId, 'history', id] as const,
  },
  prompts: {
    all: (projectId: string) => ['prompts', projectId] as const,
    versions: (projectId: string, name: string) => ['prompts', projectId, 'versions', name] as const,
  },
  datasets: {
    all: (projectId: string) => ['datasets', projectId] as const,
    list: (projectId: string, page: object) => ['datasets', projectId, 'list', page] as const,
    one: (projectId: string, name: string) => ['datasets', projectId, 'dataset', name] as const,
    items: (projectId: string, name: string, page: object) => ['datasets', projectId, 'dataset', name, 'items', page] as const,
    runs: (projectId: string, name: string, page: object) => ['datasets', projectId, 'dataset', name, 'runs', page] as const,
    run: (projectId: string, name: string, runName: string, page: object) =>
      ['datasets', projectId, 'dataset', name, 'run', runName, page] as const,
    compare: (projectId: string, name: string, runNames: string[]) =>
      ['datasets', projectId, 'dataset', name, 'compare', runNames] as const,
  },
  apiKeys: (projectId: string) => ['api-keys', projectId] as const,
  evaluators: {
    all: (projectId: string) => ['evaluators', projectId] as const,
    runs: (projectId: string, id: string, status: string | null) => ['evaluators', projectId, 'runs', id, status] as const,
  },
  llmConnections: (projectId: string) => ['llm-connections', projectId] as const,
  models: (projectId: string) => ['models', projectId] as const,
  scoreConfigs: (projectId: string) => ['score-configs', projectId] as const,
  annotationQueues: {
    all: (projectId: string) => ['annotation-queues', projectId] as const,
    one: (projectId: string, queueId: string) => ['annotation-queues', projectId, 'queue', queueId] as const,
  },
  members: (orgId: string) => ['members', orgId] as const,
  usage: {
    month: (orgId: string) => ['usage', orgId, 'month'] as const,
    daily: (orgId: string) => ['usage', orgId, 'daily'] as const,
  },
  auditLog: (orgId: string) => ['audit-log', orgId] as const,
};
