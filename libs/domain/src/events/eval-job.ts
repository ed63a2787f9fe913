import { Required, oneOf, uuidShaped } from '../validation';
import { readMessage } from './read-message';

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
export const evalJobMessageId = ({ message, deferrals }: EvalJobPublication): string =>
  deferrals ? `${message.jobId}.${deferrals}` : message.jobId;

class EvalJobFields implements EvalJobMessage {
  @Required(oneOf([EVAL_JOB_SCHEMA])) schema: typeof EVAL_JOB_SCHEMA;
  @Required(uuidShaped) jobId: string;
  @Required(uuidShaped) orgId: string;
  @Required(uuidShaped) projectId: string;
  @Required(uuidShaped) evaluatorId: string;
}

export const parseEvalJobMessage = (value: unknown): EvalJobMessage =>
  readMessage(EvalJobFields, value, `not an ${EVAL_JOB_SCHEMA} message`);
