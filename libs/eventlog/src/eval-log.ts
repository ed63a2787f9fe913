import type { JetStreamClient } from 'nats';
import { EVAL_JOB_SCHEMA, type EvalJobPublication, type EvaluationScore, INGEST_SCHEMAS, evalJobMessageId } from '@app/domain';
import { toNatsHeaders } from './headers';
import type { NatsResources } from './nats-resources';
import type { ChunkPublisher } from './publisher';
import type { StreamLayout } from './streams';

/** Who appended an evaluator's score, in the envelope's key field: no API key, the evaluation worker. */
const EVALUATOR_ACTOR = 'evaluator';

export const evalJobSubject = (layout: StreamLayout, orgId: string, evaluatorId: string): string =>
  `${layout.subjectRoot('evals')}.${orgId}.${evaluatorId}`;

/** Appends jobs to EVALS and resolves once all are acknowledged. */
export async function appendEvalJobs(js: JetStreamClient, layout: StreamLayout, jobs: EvalJobPublication[]): Promise<void> {
  await Promise.all(
    jobs.map((j) =>
      js.publish(evalJobSubject(layout, j.message.orgId, j.message.evaluatorId), JSON.stringify(j.message), {
        msgID: evalJobMessageId(j),
        headers: toNatsHeaders({ 'Spanlog-Schema': EVAL_JOB_SCHEMA }),
      }),
    ),
  );
}

export interface EvaluatedJob {
  jobId: string;
  orgId: string;
  projectId: string;
  evaluatorName: string;
  traceId: string;
  spanId: string;
}

/**
 * Appends an evaluator's result to INGEST as a native `score-create` (CONTRACT "Webhook
 * evaluators": source EVAL, name = evaluator, value = score, comment = reason, pass in the
 * metadata), so it reaches the read model, retention and rebuilds like any score. The job id
 * is the score's id: a result appended twice is still one score.
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
      id: job.jobId,
      traceId: job.traceId,
      spanId: job.spanId,
      name: job.evaluatorName,
      value: score.value,
      dataType: score.dataType,
      comment: score.comment ?? undefined,
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
