/** The one table of limits (SPEC 8, CONTRACT "Rate limits" and "Quotas and plans"). */

export const PLAN_NAMES = ['free', 'pro', 'growth', 'team', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  /** Requests per rolling second per API key. */
  readonly ratePerSecond: number;
  /** Traces per UTC month; null = unlimited. */
  readonly tracesPerMonth: number | null;
  /** Evaluator runs per UTC month; null = unlimited. */
  readonly evalRunsPerMonth: number | null;
  /** Days of retention from trace createdAt; null = kept forever. */
  readonly retentionDays: number | null;
  /** Members per organization; null = unlimited. */
  readonly seats: number | null;
  /** Whether usage beyond the monthly limits is accepted and billed. */
  readonly overages: boolean;
  readonly auditLogs: boolean;
  readonly sso: boolean;
}

export const PLANS: Readonly<Record<PlanName, PlanLimits>> = {
  free: {
    ratePerSecond: 100,
    tracesPerMonth: 10_000,
    evalRunsPerMonth: 500,
    retentionDays: 7,
    seats: 1,
    overages: false,
    auditLogs: false,
    sso: false,
  },
  pro: {
    ratePerSecond: 1_000,
    tracesPerMonth: 50_000,
    evalRunsPerMonth: 5_000,
    retentionDays: 30,
    seats: 3,
    overages: true,
    auditLogs: false,
    sso: false,
  },
  growth: {
    ratePerSecond: 1_000,
    tracesPerMonth: 150_000,
    evalRunsPerMonth: 15_000,
    retentionDays: 60,
    seats: null,
    overages: true,
    auditLogs: true,
    sso: false,
  },
  team: {
    ratePerSecond: 1_000,
    tracesPerMonth: 500_000,
    evalRunsPerMonth: 50_000,
    retentionDays: 90,
    seats: null,
    overages: true,
    auditLogs: true,
    sso: false,
  },
  // SPEC 8.2 states both 1,000 and 10,000 for Enterprise; CONTRACT takes 10,000.
  enterprise: {
    ratePerSecond: 10_000,
    tracesPerMonth: null,
    evalRunsPerMonth: null,
    retentionDays: null,
    seats: null,
    overages: false,
    auditLogs: true,
    sso: true,
  },
};

/** Rate limits count over a rolling window of this length (SPEC 8.2). */
export const RATE_LIMIT_WINDOW_MS = 1_000;

/** `/api/v1/auth/*` is counted per client IP (CONTRACT "Rate limits"). */
export const AUTH_RATE_PER_SECOND_PER_IP = 100;

/**
 * Failed logins per account (OWASP Authentication Cheat Sheet, "Account lockout"): after
 * `freeFailures` failures within `windowMs` the account waits `firstLockMs` before the next
 * attempt, doubling with each further failure up to `maxLockMs`, so a guesser gets about 25
 * tries in the first hour and 12 an hour after, while the real user is never locked out for
 * longer than a few minutes.
 * A successful login clears the count.
 */
export const LOGIN_THROTTLE = {
  freeFailures: 5,
  windowMs: 15 * 60_000,
  firstLockMs: 1_000,
  maxLockMs: 5 * 60_000,
} as const;

/**
 * Password hashing (argon2id, 19 MiB and a core for tens of milliseconds each) runs at most
 * `concurrent` at a time and keeps at most `queued` waiting; beyond that a login is refused
 * with 503 at once, so a login flood takes one core and never the ingestion's.
 */
export const PASSWORD_HASHING = { concurrent: 1, queued: 16 } as const;

/**
 * API-key authentications that fail (unknown or revoked key) per client IP in the rate-limit
 * window; past them the IP's unknown keys are refused with 429 before any database look-up.
 */
export const FAILED_KEY_AUTHS_PER_SECOND_PER_IP = 10;

/**
 * Organizations, projects and API keys one user may create, together, in a rolling window
 * (`SPANLOG_CREATIONS_PER_MINUTE` overrides the figure): each is a row, an audit event and,
 * for a key, a rate-limit bucket of its own, so they must not be made by the thousand.
 */
export const CREATION_RATE = { perWindow: 10, windowMs: 60_000 } as const;

/** Free organizations one user may own (`SPANLOG_MAX_FREE_ORGS_PER_USER` overrides; 0 is no limit): each is a fresh Free quota. */
export const DEFAULT_MAX_FREE_ORGS_PER_USER = 2;

/** Unrevoked API keys per project: every key has a rate-limit bucket of its own, and a key is never needed by the hundred. */
export const MAX_ACTIVE_API_KEYS_PER_PROJECT = 100;

/** Requests per second for an API key: the organization's own setting, else its plan's. */
export const rateLimitOf = (plan: PlanName, organizationOverride: number | null): number =>
  organizationOverride ?? PLANS[plan].ratePerSecond;

export const isPlanName = (value: unknown): value is PlanName =>
  typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);

const MB = 1024 * 1024;

/** Request body limits in bytes (SPEC 8.1); applied to the decompressed body too. */
export const PAYLOAD_LIMITS = {
  traces: 5 * MB,
  otelTraces: 5 * MB,
  /** The same exporters send logs and traces, so both take the same limit. */
  otelLogs: 5 * MB,
  scores: 1 * MB,
  routeModel: 512 * 1024,
  /** Up to DATASET_LIMITS.itemsPerRequest items of at most DATASET_LIMITS.itemBytes each. */
  datasetItems: 5 * MB,
  /** Everything else (auth, prompt templates, tRPC). */
  default: 1 * MB,
} as const;

/** The largest body any route accepts; the HTTP server's hard ceiling. */
export const MAX_BODY_BYTES = Math.max(...Object.values(PAYLOAD_LIMITS));

/**
 * How long the API waits on a client. Without a bound a body sent at one byte a second holds
 * its connection (and the memory of its request) for as long as the client likes.
 */
export const HTTP_TIMEOUTS = {
  /** The request line and headers must have arrived within this. */
  headersMs: 10_000,
  /** The whole request, headers and body, within this (a 5 MB body needs about 170 KB/s); then 408 and the connection is closed. */
  requestMs: 30_000,
  /** How often the two bounds above are checked, so a slow request is cut at most this late. */
  checkIntervalMs: 1_000,
  /** A connection on which nothing moves either way for this long is closed; above the longest wait of a handler (read-your-writes, 10 s). */
  idleMs: 60_000,
  /** An idle kept-alive connection is closed after this: longer than the 60 s idle timeout of common load balancers, so that they close first. */
  keepAliveMs: 72_000,
} as const;

export const MAX_BATCH_EVENTS = 1_000;
export const MAX_SCORES_PER_REQUEST = 1_000;

/** Deeper JSON is refused: recursive code and Postgres jsonb ("stack depth limit exceeded") cannot take it. */
export const MAX_JSON_DEPTH = 64;

/** Native ids are 1–256 characters (CONTRACT "General"). */
export const MAX_NATIVE_ID_LENGTH = 256;

/**
 * Characters of one URL path segment as sent (`/api/v1/traces/:id`): the longest native id
 * percent-encoded (a UTF-16 unit is at most 9 characters: 3 UTF-8 bytes as `%XX`). Longer is 414.
 */
export const MAX_PATH_SEGMENT_LENGTH = MAX_NATIVE_ID_LENGTH * 9;

/**
 * Plausible ranges of what a span reports, checked where data enters (native validation,
 * OTLP conversion). Far beyond any real call, yet small enough that no sum over a project's
 * spans can overflow a double: one `cost` of 1.8e308 once made every trace list answer 500.
 */
export const TELEMETRY_RANGES = {
  /** Cost of one span, in the currency the client reports (USD for the common SDKs). */
  spanCost: { min: 0, max: 1_000_000 },
  /** Each token count of one span (input, output, total): a thousand times the largest context windows. */
  spanTokens: { min: 0, max: 1_000_000_000 },
  /**
   * Every timestamp a client sends (event, trace, span, OTLP nanoseconds) and every time
   * filter, in epoch milliseconds, bounds included. Fixed rather than relative to the clock:
   * the processor validates again when it replays, years later, and must agree with the API.
   */
  timestampMs: { min: Date.UTC(1970, 0, 1), max: Date.UTC(2099, 11, 31, 23, 59, 59, 999) },
} as const;

export const TRACE_QUERY_LIMIT = { min: 1, max: 100, default: 50 } as const;

/**
 * A page of the trace list (GET /api/v1/traces, RPC trace.list): a trace's `input`, `output` or
 * `metadata` larger than `fieldBytes` comes back as null, named with its size in the trace's
 * `truncated` (GET /api/v1/traces/:id has it whole), and each trace's `scores` summary holds at
 * most `scoreGroups` names and sources. So a page of 100 traces is at most about 20 MB.
 */
export const TRACE_LIST_LIMITS = { fieldBytes: 64 * 1024, scoreGroups: 20 } as const;

/**
 * One trace read (REST GET /api/v1/traces/:id and its sub-routes, RPC trace.get, trace.spans,
 * trace.scores) answers a page of spans and a page of scores, never the whole trace: a Free
 * tenant can write 100,000+ spans of several KB into one trace, and building it whole took
 * 1.5 GB and failed. Bytes are what the fields measure as JSON text in Postgres.
 * - `spans`/`scores`: rows per page (`spansLimit`/`limit`);
 * - `pageBytes`: a page ends before the row that would take it past this, but always holds
 *   at least one row;
 * - `fieldBytes`: a span's `input`, `output`, `metadata`, `attributes`, `modelParameters` or
 *   `statusMessage` larger than this comes back as null, named with its size in the span's
 *   `truncated`; GET /api/v1/traces/:id/spans/:spanId (RPC trace.span) answers the span whole.
 * So a page holds at most `pageBytes` of row data, or one span of at most 6 × `fieldBytes`
 * (or one score, at most PAYLOAD_LIMITS.scores). REST pages are large enough for every trace
 * an ingestion request of 5 MB can write to come back whole as before; the RPC's are a quarter
 * of that, since one RPC answer carries a batch of up to RPC_LIMITS.batchCalls pages.
 */
export const TRACE_READ_LIMITS = {
  rest: { pageBytes: 8 * MB, fieldBytes: 4 * MB },
  rpc: { pageBytes: 2 * MB, fieldBytes: 1 * MB },
  /** What the MCP server reads for an agent's tree (MCP_LIMITS cuts each field further). */
  mcp: { pageBytes: 1 * MB, fieldBytes: 64 * 1024 },
  spans: { min: 1, max: 1_000, default: 1_000 },
  scores: { min: 1, max: 1_000, default: 1_000 },
  /** What a row's fields outside the measured ones (ids, times, numbers, type, model) weigh at most, counted per row. */
  rowOverheadBytes: 1_024,
  /**
   * Trace reads one API process runs at once, each one query at a time; more wait their turn.
   * So trace reads hold at most this many database connections (of the pool's 10: health,
   * ingestion's quota and auth keep theirs) and this many pages in memory while they are read.
   */
  concurrentReads: 4,
} as const;

/**
 * The dashboard RPC (`/api/trpc/*`): never limited per API key (SPEC 4.12, CONTRACT "Rate
 * limits"), yet one session must not be able to pile up reads whose cost it chooses. Procedures
 * per batch request, and heavy procedure calls per session in the rate-limit window (a batch
 * counts each of its calls). The dashboard sends one call per request and at most a few reads
 * per second while a person scrolls, far below this.
 */
export const RPC_LIMITS = {
  batchCalls: 10,
  heavyCallsPerSecondPerSession: 50,
  /**
   * `trace.span` answers one span whole (up to 6 fields of 5 MB, what ingestion lets one span
   * hold), so it also counts in a bucket of its own: a batch of them cannot add up to gigabytes.
   * The dashboard asks for one only when a page cut a field of the span a person opened.
   */
  wholeSpansPerSecondPerSession: 5,
} as const;

/** POST /api/v1/route-model: candidates per request, a model name's length, the longest window (30 days). */
export const ROUTE_MODEL_LIMITS = { candidates: 50, modelName: 256, windowHours: 720 } as const;

/**
 * The MCP server (docs/mcp.md): an agent's context is small, so `get_trace` shows each span's
 * input and output cut to `fieldChars` characters (`get_span` gives them whole) and pages the
 * tree by `spans` at a time.
 */
export const MCP_LIMITS = {
  fieldChars: 2_000,
  spans: { min: 1, max: 200, default: 100 },
} as const;

/**
 * `GET /api/v1/traces/export` (docs/reading.md "Exports"): traces read per database query
 * (with their spans and scores when included), and the longest an export may run; at that
 * bound the server ends the body where it is, after a last line naming the cut (JSONL) or
 * without one (CSV), and logs it.
 */
export const EXPORT_LIMITS = {
  tracesPerQuery: 200,
  maxDurationMs: 15 * 60_000,
} as const;

/** How long a read with minSeq waits for the projections (CONTRACT "Read-your-writes"). */
export const READ_YOUR_WRITES_WAIT_MS = 10_000;

/** Webhook evaluators (SPEC 2.6, 6.1, 8.6; CONTRACT "Webhook evaluators"). */
export const EVALUATOR_LIMITS = {
  timeoutMs: { min: 1_000, max: 30_000, default: 10_000 },
  retries: { min: 0, max: 5, default: 1 },
  /** SPEC 6.1 rule 5: calls in flight per URL, across all evaluators that share it. */
  concurrentCallsPerUrl: 10,
  /** SPEC 6.1 rule 3: backoff before retry n is this times 2^(n-1). */
  retryBackoffMs: 1_000,
  /**
   * Jobs one worker process has in hand at once, each calling, waiting for its URL's turn or
   * being recorded: bounds its memory, sockets and the messages it keeps alive.
   */
  jobsInHand: 1_000,
  /**
   * Jobs of one URL a worker holds at once (its 10 calls and the next ones in line); more are
   * deferred, so a URL that stalls can take at most this share of `jobsInHand`.
   */
  jobsHeldPerUrl: 20,
  /** A deferred job waits this times 2^(deferrals so far), up to `maxDeferralMs`. */
  deferralBackoffMs: 1_000,
  maxDeferralMs: 300_000,
  nameLength: 200,
  urlLength: 2_048,
  headers: 20,
  /** Header names: far beyond any real one, short enough to show in a message and store twenty of. */
  headerNameLength: 256,
  headerValueLength: 4_096,
  filterNames: 100,
  /** The answer of a webhook is read up to this size; a larger one is an invalid answer. */
  responseBytes: 64 * 1024,
  /** The reason stored with a result (the score's comment). */
  reasonLength: 2_000,
  defaultSpanTypes: ['LLM'],
  /** An LLM judge answers slowly and its provider rate-limits: more time and more retries (1 s, 2 s, 4 s) by default. */
  judgeDefaults: { timeoutMs: 30_000, retries: 3 },
  judgeModelLength: 200,
  judgeCategories: 50,
  judgeCategoryLength: 200,
  /** The answer of a judge is read up to this size (a reasoning can be long). */
  judgeResponseBytes: 1024 * 1024,
  /** An input or output as it goes into a judge's prompt: beyond this it is cut, and says so. */
  judgeVariableLength: 100_000,
  /** An evaluator's run log, per page. */
  runsPage: 50,
  /** Trace targets: the quiet window after the trace's last data, in whole seconds. */
  quietSeconds: { min: 5, max: 3_600, default: 30 },
  /** Trace targets: evaluations of one trace per evaluator, the first and one after late data. */
  traceRuns: 2,
  /** Trace targets: spans summarized in the webhook's payload (the earliest started); the rest are counted. */
  traceSpansInPayload: 200,
  /** Tags and environments a trace filter names. */
  filterValues: 100,
} as const;

/** Prompt templates (CONTRACT "Prompt templates"); a request body is at most PAYLOAD_LIMITS.default. */
export const PROMPT_TEMPLATE_LIMITS = {
  nameLength: 256,
  /** Labels set by one push. */
  labels: 20,
  labelLength: 64,
  /** Messages of a chat template. */
  messages: 1_000,
  roleLength: 64,
  commitMessageLength: 2_000,
  list: { min: 1, max: 100, default: 50 },
  /**
   * Tries of one push while concurrent pushes of the same name take the version it computed
   * (each try waits for the push holding that version to finish, so every try lets one push
   * through): then 503, which the client retries.
   */
  pushAttempts: 100,
} as const;

/** Datasets and experiments (issue 31); other bodies of their routes are at most PAYLOAD_LIMITS.default. */
export const DATASET_LIMITS = {
  nameLength: 256,
  descriptionLength: 10_000,
  /** A client's item id, as Langfuse bounds it. */
  itemIdLength: 255,
  /** One item's input, expected output and metadata together, as JSON. */
  itemBytes: 1 * MB,
  /** Items of one POST (PAYLOAD_TOO_LARGE past it, as the batch size is). */
  itemsPerRequest: 1_000,
  /** Datasets, items or runs of one page of a list. */
  list: { min: 1, max: 100, default: 50 },
  /** Items of one page of a run's results (`GET …/runs/{runName}`). */
  runItemsPage: { min: 1, max: 1_000, default: 1_000 },
} as const;
/** Score configs (issue 30); a score's name is at most 1,000 characters, so a config's name is too. */
export const SCORE_CONFIG_LIMITS = {
  nameLength: 1_000,
  descriptionLength: 2_000,
  categories: 100,
  categoryLabelLength: 256,
  /** Langfuse's `GET /api/public/score-configs` page. */
  page: { min: 1, max: 100, default: 50 },
} as const;

/** Scores given by hand (issue 30). */
export const HAND_SCORE_LIMITS = { commentLength: 10_000 } as const;

/** Annotation queues (issue 30). */
export const ANNOTATION_QUEUE_LIMITS = {
  nameLength: 200,
  descriptionLength: 2_000,
  /** Score configs one queue asks its reviewers for (1..9 are keyboard shortcuts). */
  scoreConfigs: 9,
  /** Items one `addItems` or `addFromFilter` adds at most. */
  itemsPerRequest: 1_000,
  /** How long an item taken by `next` stays locked to its reviewer: long enough to read a conversation and score it. */
  lockMs: 5 * 60_000,
  /** Items of one page of `annotationQueue.items`. */
  itemsPage: 50,
} as const;
