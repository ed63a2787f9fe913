/**
 * The DataSource the read models are queried through: the replica named by DATABASE_READ_URL,
 * else the primary DataSource itself (one pool, as without a replica). Inject it as
 * `@Inject(READ_DB) ds: DataSource` — or take a query class built over it (TraceQueries,
 * TraceGroupQueries, RunResultsQuery, ProjectionCheckpoints) — for what only reads projected
 * telemetry. Writes, configuration, auth, rate limits, quotas and usage stay on `DataSource`
 * (docs/ARCHITECTURE.md "Read replicas" lists what goes where).
 */
export const READ_DB = Symbol('READ_DB');
