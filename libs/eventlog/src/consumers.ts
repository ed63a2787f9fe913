/** Durable consumer names shared by the processor (which runs them) and the API (which reads their progress). */
export const CONSUMERS = {
  /** Projects INGEST into traces, spans and scores. */
  ingestProjector: 'ingest-projector',
  /** Projects USAGE into the monthly usage counters. */
  usageProjector: 'usage-projector',
  /** Projects AUDIT into the audit log. */
  auditProjector: 'audit-projector',
  /** Runs the evaluation jobs of EVALS against their webhooks. */
  evaluationWorker: 'evaluation-worker',
} as const;
