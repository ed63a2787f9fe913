import { Counter, Histogram } from 'prom-client';

/*
 * Every spanlog_* metric that counts or times something where it happens, in one place. They
 * belong to no registry: each app's registry (`metricsRegistry`) takes the ones it serves, so
 * a scrape shows only what that app can move. Labels take bounded values only: route
 * patterns (never URLs), endpoint kinds, stream, consumer and projection names, outcomes;
 * never a project, organization or trace id.
 */

/** Seconds: from a cached read (ms) to a read-your-writes wait (10 s) or a large OTLP export. */
const REQUEST_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/**
 * Seconds: a JetStream acknowledgement takes about a millisecond; through a leader election the
 * publisher keeps trying for up to 8 s (PUBLISH_RETRY_WINDOW_MS), which the last buckets show.
 */
const PUBLISH_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const HTTP_LABELS = ['method', 'route', 'status'] as const;

export const httpRequests = new Counter({
  name: 'spanlog_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status code',
  labelNames: HTTP_LABELS,
  registers: [],
});

export const httpRequestDuration = new Histogram({
  name: 'spanlog_http_request_duration_seconds',
  help: 'Time from receiving a request to sending its answer, by method, route pattern and status code',
  labelNames: HTTP_LABELS,
  buckets: REQUEST_SECONDS,
  registers: [],
});

/** The ingestion endpoints: native batches, OTLP trace exports, OTLP log exports, scores. */
export const INGEST_KINDS = ['batch', 'otel', 'logs', 'scores', 'run-items'] as const;
export type IngestKind = (typeof INGEST_KINDS)[number];

export const acceptedEvents = new Counter({
  name: 'spanlog_ingest_accepted_events_total',
  help: 'What the ingestion endpoints answered as accepted: native events, OTLP spans, OTLP log records, scores',
  labelNames: ['kind'] as const,
  registers: [],
});

export const acceptedSpans = new Counter({
  name: 'spanlog_ingest_accepted_spans_total',
  help: 'Spans among the accepted events: native span, generation and event events, OTLP spans',
  labelNames: ['kind'] as const,
  registers: [],
});

export const publishDuration = new Histogram({
  name: 'spanlog_nats_publish_duration_seconds',
  help: 'Time from publishing one ingestion message to its JetStream acknowledgement (or failure), retries through a leader election included',
  labelNames: ['outcome'] as const,
  buckets: PUBLISH_SECONDS,
  registers: [],
});

export const consumerAppliedMessages = new Counter({
  name: 'spanlog_consumer_applied_messages_total',
  help: 'Messages a durable consumer applied and acknowledged, by consumer',
  labelNames: ['consumer'] as const,
  registers: [],
});

export const deadLetters = new Counter({
  name: 'spanlog_dead_letters_total',
  help: 'Messages moved to the dead-letter stream, by source stream and consumer',
  labelNames: ['stream', 'consumer'] as const,
  registers: [],
});

export const projectionAppliedSpans = new Counter({
  name: 'spanlog_projection_applied_spans_total',
  help: 'Spans written by a projection (each span once per batch that sets it), by projection',
  labelNames: ['projection'] as const,
  registers: [],
});

export const projectionAppliedEvents = new Counter({
  name: 'spanlog_projection_applied_events_total',
  help: 'Events a projection applied live, by projection: stored requests (telemetry), usage counts (usage), audit events (audit)',
  labelNames: ['projection'] as const,
  registers: [],
});

/** Spans a cost recomputation looked at (after a project's price definition changed), and those whose cost it changed. */
export const costRecomputeSpans = new Counter({
  name: 'spanlog_cost_recompute_spans_total',
  help: 'Spans with usage a cost recomputation looked at after a price definition changed, by outcome (recosted, unchanged)',
  labelNames: ['outcome'] as const,
  registers: [],
});

export const projectionRecountedBuckets = new Counter({
  name: 'spanlog_projection_recounted_buckets_total',
  help: 'Marked buckets a projection derived from rows recounted, by projection (model-stats: hourly and 5-minute buckets)',
  labelNames: ['projection'] as const,
  registers: [],
});

/** What an evaluation job came to: the webhook's verdict, an error (scored 0 and fail), or skipped by the eval quota. */
export const EVALUATION_OUTCOMES = ['pass', 'fail', 'error', 'skipped'] as const;
export type EvaluationOutcome = (typeof EVALUATION_OUTCOMES)[number];

export const evaluatorCalls = new Counter({
  name: 'spanlog_evaluator_calls_total',
  help: 'Evaluation jobs run, by outcome: pass, fail, error (no valid answer) or skipped (eval quota)',
  labelNames: ['outcome'] as const,
  registers: [],
});

/** How an evaluator run ended in the run log (issue 29), for webhooks and judges alike. */
export const EVALUATOR_RUN_KINDS = ['webhook', 'llm-judge'] as const;
export const EVALUATOR_RUN_OUTCOMES = ['succeeded', 'failed', 'skipped'] as const;

export const evaluatorRuns = new Counter({
  name: 'spanlog_evaluator_runs_total',
  help: 'Evaluation jobs the worker settled, by evaluator kind and outcome: succeeded, failed (no valid result) or skipped (quota, disabled, deleted); sampled-out spans are in the run log only',
  labelNames: ['kind', 'outcome'] as const,
  registers: [],
});

export const RETENTION_OUTCOMES = ['finished', 'skipped', 'failed'] as const;
export const RETENTION_DELETED_KINDS = ['traces', 'spans', 'scores', 'messages'] as const;

export const retentionRuns = new Counter({
  name: 'spanlog_retention_runs_total',
  help: "The processor's daily retention runs, by outcome: finished, skipped (another run held the lock) or failed",
  labelNames: ['outcome'] as const,
  registers: [],
});

export const retentionDeleted = new Counter({
  name: 'spanlog_retention_deleted_total',
  help: 'What retention runs deleted: traces, spans and scores, and requests removed from the event log (messages)',
  labelNames: ['kind'] as const,
  registers: [],
});

export const VERIFY_OUTCOMES = ['clean', 'mismatch', 'failed'] as const;
/** Rows missing per table, and requests never applied or unreadable. */
export const VERIFY_MISMATCH_KINDS = ['traces', 'spans', 'scores', 'unapplied', 'rejected'] as const;

export const verifyRounds = new Counter({
  name: 'spanlog_verify_rounds_total',
  help: "The processor's scheduled verification rounds (spanlog verify), by outcome: clean, mismatch or failed",
  labelNames: ['outcome'] as const,
  registers: [],
});

export const verifyMismatches = new Counter({
  name: 'spanlog_verify_mismatches_total',
  help: 'Differences the scheduled verification found: rows missing from traces, spans or scores, and requests unapplied or rejected',
  labelNames: ['kind'] as const,
  registers: [],
});

/** The processor's jobs that run once per period across processors (ScheduledJobRuns). */
export const SCHEDULED_JOBS = ['retention', 'verify', 'monitors'] as const;
export type ScheduledJob = (typeof SCHEDULED_JOBS)[number];
/** `ran`: this processor ran the period's round; `skipped`: the period was done, or being done, by a processor; `failed`: Postgres could not say. */
export const SCHEDULED_ROUND_OUTCOMES = ['ran', 'skipped', 'failed'] as const;

export const scheduledRounds = new Counter({
  name: 'spanlog_scheduled_rounds_total',
  help: 'Looks of this processor at its scheduled jobs (retention, verify, monitors), by job and outcome: ran the round here, skipped it (the period was done or being done), or failed (its run could not be claimed or recorded)',
  labelNames: ['job', 'outcome'] as const,
  registers: [],
});

/** Series of known label values exist from the start at 0, so rates and alerts see them before the first event. */
function startAtZero<L extends string>(counter: Counter<L>, label: L, values: readonly string[]): void {
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<L, string>>, 0);
}

startAtZero(acceptedEvents, 'kind', INGEST_KINDS);
startAtZero(acceptedSpans, 'kind', ['batch', 'otel']);
startAtZero(evaluatorCalls, 'outcome', EVALUATION_OUTCOMES);
for (const kind of EVALUATOR_RUN_KINDS) for (const outcome of EVALUATOR_RUN_OUTCOMES) evaluatorRuns.inc({ kind, outcome }, 0);
startAtZero(retentionRuns, 'outcome', RETENTION_OUTCOMES);
startAtZero(retentionDeleted, 'kind', RETENTION_DELETED_KINDS);
startAtZero(verifyRounds, 'outcome', VERIFY_OUTCOMES);
startAtZero(verifyMismatches, 'kind', VERIFY_MISMATCH_KINDS);
for (const job of SCHEDULED_JOBS) for (const outcome of SCHEDULED_ROUND_OUTCOMES) scheduledRounds.inc({ job, outcome }, 0);
