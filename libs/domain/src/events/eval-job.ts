import { isUuidShaped } from '../ids';

/** The EVALS stream's one message schema: one evaluation job for one span (DESIGN "Streams"). */
export const EVAL_JOB_SCHEMA = 'eval.job/v1';

export interface EvalJobMessage {
  schema: typeof EVAL_JOB_SCHEMA;
  /** The `eval_jobs` row; with `deferrals`, the message id, so a relayed job is stored once. */
  jobId: string;
  orgId: string;
  projectId: string;
  evaluatorId: string;
}

/** A job as the relay publishes it: the message, and how often the job was deferred before. */
export interface EvalJobPublication {
  message: EvalJobMessage;
  deferrals: number;
}

/**
 * The message id of a publication: the job id, then one per deferral, so a relay that
 * publishes a job twice is stored once, while a deferred job published again is a new message.
 */
export const evalJobMessageId = ({ message, deferrals }: EvalJobPublication): string => (deferrals ? `${message.jobId}.${deferrals}` : message.jobId);


export function parseEvalJobMessage(value: unknown): EvalJobMessage {
  const m = value as Partial<EvalJobMessage> | null;
  const ids = ['jobId', 'orgId', 'projectId', 'evaluatorId'] as const;
  if (!m || typeof m !== 'object' || m.schema !== EVAL_JOB_SCHEMA || !ids.every((k) => isUuidShaped(m[k]))) {
    throw new Error(`not an ${EVAL_JOB_SCHEMA} message`);
  }
  return { schema: EVAL_JOB_SCHEMA, jobId: m.jobId as string, orgId: m.orgId as string, projectId: m.projectId as string, evaluatorId: m.evaluatorId as string };
}
