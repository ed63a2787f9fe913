import type { JetStreamClient } from 'nats';
import { EVAL_JOB_SCHEMA, type EvalJobPublication, type EvaluationScore, INGEST_SCHEMAS, evalJobMessageId } from '@app/domain';
import { toNatsHeaders } from './headers';
import type { NatsResources } from './nats-resources';
import type { ChunkPublisher } from './publisher';
import type { StreamLayout } from './streams';
import { publishWithRetry } from './publish-retry';

/** Who appended an evaluator's score, in the envelope's key field: no API key, the evaluation worker. */
const EVALUATOR_ACTOR = 'evaluator';

export const evalJobSubject = (layout: StreamLayout, orgId: string, evaluatorId: string): string =>
  `${layout.subjectRoot('evals')}.${orgId}.${evaluatorId}`;

/** Appends jobs to EVALS and resolves once all are acknowledged. */
export async function appendEvalJobs(js: JetStreamClient, layout: StreamLayout, jobs: EvalJobPublication[]): Promise<void> {
  await Promise.all(
    jobs.map((j) =>
      publishWithRetry(js, evalJobSubject(layout, j.message.orgId, j.message.evaluatorId), JSON.stringify(j.message), {
        msgID: evalJobMessageId(j),
        headers: toNatsHeaders({ 'Spanlog-Schema': EVAL_JOB_SCHEMA }),
      }),
    ),
  );
}

export interface EvaluatedJob {
  jobId: string;
  /** The score's id (`evaluationScoreId`): a trace evaluated again replaces its score. */
  scoreId: string;
  orgId: string;
  projectId: string;
  evaluatorName: string;
  traceId: string;
  /** Null for a trace-target evaluation: the score is the trace's. */
  spanId: string | null;
}

/**
 * Appends an evaluator's result to INGEST as a native `score-create` (CONTRACT "Webhook
 * evaluators": source EVAL, name = evaluator, value = score, comment = reason, pass in the
 * metadata), so it reaches the read model, retention and rebuilds like any score. The score id
 * is fixed per job (per evaluator and trace for a trace target): a result appended twice is
 * still one score, and a newer run's, stamped later, replaces every field of the older one
 * (the comment is always set, so an older reason never outlives its run).
 */
export async function appendEvaluationScore(
  nats: NatsResources,
  publisher: ChunkPublisher,
  job: EvaluatedJob,
  score: EvaluationScore,
  atIso: string,
): Promise<void> {
  const event = {
    id: `eval-${job.jobId}`,
    type: 'score-create',
    timestamp: atIso,
    body: {
      id: job.scoreId,
      traceId: job.traceId,
      spanId: job.spanId ?? undefined,
      name: job.evaluatorName,
      value: score.value,
      dataType: score.dataType,
      // A trace's score is replaced by its next run: an empty comment clears the older run's.
      comment: job.spanId ? (score.comment ?? undefined) : (score.comment ?? ''),
      metadata: score.metadata,
      source: 'EVAL',
    },
  };
  const envelope = {
    schema: INGEST_SCHEMAS.nativeBatch,
    orgId: job.orgId,
    projectId: job.projectId,
    apiKeyId: EVALUATOR_ACTOR,
    receivedAt: atIso,
    requestId: job.jobId,
  };
  await publisher.publish(nats.layout.ingestSubject(job.orgId, job.projectId, 'batch'), envelope, [
    new TextEncoder().encode(JSON.stringify({ batch: [event] })),
  ]);
}
