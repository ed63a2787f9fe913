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
  free: { ratePerSecond: 100, tracesPerMonth: 10_000, evalRunsPerMonth: 500, retentionDays: 7, seats: 1, overages: false, auditLogs: false, sso: false },
  pro: { ratePerSecond: 1_000, tracesPerMonth: 50_000, evalRunsPerMonth: 5_000, retentionDays: 30, seats: 3, overages: true, auditLogs: false, sso: false },
  growth: { ratePerSecond: 1_000, tracesPerMonth: 150_000, evalRunsPerMonth: 15_000, retentionDays: 60, seats: null, overages: true, auditLogs: true, sso: false },
  team: { ratePerSecond: 1_000, tracesPerMonth: 500_000, evalRunsPerMonth: 50_000, retentionDays: 90, seats: null, overages: true, auditLogs: true, sso: false },
  // SPEC 8.2 states both 1,000 and 10,000 for Enterprise; CONTRACT takes 10,000.
  enterprise: { ratePerSecond: 10_000, tracesPerMonth: null, evalRunsPerMonth: null, retentionDays: null, seats: null, overages: false, auditLogs: true, sso: true },
};

/** Rate limits count over a rolling window of this length (SPEC 8.2). */
export const RATE_LIMIT_WINDOW_MS = 1_000;

/** `/api/v1/auth/*` is counted per client IP (CONTRACT "Rate limits"). */
export const AUTH_RATE_PER_SECOND_PER_IP = 100;

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
  scores: 1 * MB,
  routeModel: 512 * 1024,
  /** Everything else (auth, prompt templates, tRPC). */
  default: 1 * MB,
} as const;

/** The largest body any route accepts; the HTTP server's hard ceiling. */
export const MAX_BODY_BYTES = Math.max(...Object.values(PAYLOAD_LIMITS));

export const MAX_BATCH_EVENTS = 1_000;
export const MAX_SCORES_PER_REQUEST = 1_000;

/** Deeper JSON is refused: recursive code and Postgres jsonb ("stack depth limit exceeded") cannot take it. */
export const MAX_JSON_DEPTH = 64;

/** Native ids are 1–256 characters (CONTRACT "General"). */
export const MAX_NATIVE_ID_LENGTH = 256;

export const TRACE_QUERY_LIMIT = { min: 1, max: 100, default: 50 } as const;

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
  headerValueLength: 4_096,
  filterNames: 100,
  /** The answer of a webhook is read up to this size; a larger one is an invalid answer. */
  responseBytes: 64 * 1024,
  /** The reason stored with a result (the score's comment). */
  reasonLength: 2_000,
  defaultSpanTypes: ['LLM'],
} as const;
