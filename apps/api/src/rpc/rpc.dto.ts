import {
  EVAL_RUN_STATUSES,
  type EvalRunStatus,
  DATASET_LIMITS,
  HAND_SCORE_LIMITS,
  MEMBER_ROLES,
  type MemberRole,
  Optional,
  Required,
  anyText,
  bool,
  decimalInteger,
  type FieldRule,
  email,
  jsonObject,
  nested,
  oneOf,
  QUEUE_ITEM_STATUSES,
  type QueueItemStatus,
  type QueueTarget,
  queueDescription,
  queueName,
  queueScoreConfigIds,
  queueTargets,
  storableTextList,
  requiredText,
  storedText,
  timestamp,
  uuid,
} from '@app/domain';
import { TraceFilterFields } from '../traces/trace-query.dto';

const name = requiredText(200);

export class OrgInput {
  @Required(uuid) orgId: string;
}
export class OrgCreateInput {
  @Required(name) name: string;
}
export class ProjectCreateInput extends OrgInput {
  @Required(name) name: string;
}
export class ProjectInput {
  @Required(uuid) projectId: string;
}
export class ApiKeyCreateInput extends ProjectInput {
  @Required(name) name: string;
}
export class ApiKeyRevokeInput extends ProjectInput {
  @Required(uuid) id: string;
}
export class MemberAddInput extends OrgInput {
  @Required(email) email: string;
  @Required(oneOf(MEMBER_ROLES)) role: MemberRole;
}
export class MemberRemoveInput extends OrgInput {
  @Required(uuid) userId: string;
  @Optional(bool) revokeKeys?: boolean;
}
export class SecurityLogInput {
  @Optional(anyText) cursor?: string;
}
export class AuditLogInput extends OrgInput {
  @Optional(anyText) cursor?: string;
}
/** The evaluator's own fields are not declared here: validateEvaluatorInput checks them. */
export class EvaluatorInput extends ProjectInput {
  @Required(uuid) id: string;
}
export class EvaluatorRunsInput extends EvaluatorInput {
  @Optional(oneOf(EVAL_RUN_STATUSES)) status?: EvalRunStatus;
  @Optional(anyText) cursor?: string;
}
export class EvaluatorTestInput extends ProjectInput {
  @Optional(uuid) evaluatorId?: string;
  @Optional(jsonObject) config?: Record<string, unknown>;
  @Optional(uuid) spanId?: string;
  @Optional(requiredText(256)) traceId?: string;
}
export class LlmConnectionInput extends ProjectInput {
  @Required(uuid) id: string;
}
export class PromptListInput extends ProjectInput {
  @Optional(anyText) cursor?: string;
}
/** The name's own rules (length, characters) are checked by the domain's readPromptName. */
export class PromptVersionsInput extends PromptListInput {
  @Required(anyText) name: string;
}
export class MonitorIdInput extends ProjectInput {
  @Required(uuid) id: string;
}
export class MonitorHistoryInput extends MonitorIdInput {
  @Optional(anyText) cursor?: string;
}

const datasetName = requiredText(DATASET_LIMITS.nameLength);
export class DatasetListInput extends ProjectInput {
  @Optional(decimalInteger({ min: 1, max: 1_000_000 })) page?: number;
  @Optional(decimalInteger(DATASET_LIMITS.list)) limit?: number;
}
export class DatasetInput extends ProjectInput {
  @Required(datasetName) name: string;
}
export class DatasetPageInput extends DatasetInput {
  @Optional(decimalInteger({ min: 1, max: 1_000_000 })) page?: number;
  @Optional(decimalInteger(DATASET_LIMITS.list)) limit?: number;
}
/** `version`: the items as they were at that time. */
export class DatasetItemsInput extends DatasetPageInput {
  @Optional(timestamp) version?: string;
}
export class DatasetRunInput extends DatasetInput {
  @Required(datasetName) runName: string;
  @Optional(decimalInteger({ min: 1, max: 1_000_000 })) page?: number;
  @Optional(decimalInteger(DATASET_LIMITS.runItemsPage)) limit?: number;
}
/** Runs compared side by side: two or more, at most ten. */
const runNames: FieldRule = {
  test: (v, dto) => Array.isArray(v) && v.length >= 2 && v.length <= 10 && v.every((n) => datasetName.test?.(n, dto)),
  message: `must be an array of 2 to 10 run names of 1 to ${DATASET_LIMITS.nameLength} characters`,
  schema: { type: 'array', minItems: 2, maxItems: 10, items: { type: 'string', minLength: 1, maxLength: DATASET_LIMITS.nameLength } },
};
export class DatasetCompareInput extends DatasetInput {
  @Required(runNames) runNames: string[];
}
/** The items (`items`) are not declared here: validateDatasetItemsRequest checks them as REST does, naming each field. */
export class DatasetItemsWriteInput extends ProjectInput {
  @Required(datasetName) datasetName: string;
}
export class DatasetItemArchiveInput extends DatasetItemsWriteInput {
  @Required(requiredText(DATASET_LIMITS.itemIdLength)) itemId: string;
  /** false restores an archived item. */
  @Required(bool) archived: boolean;
}
export class ModelIdInput extends ProjectInput {
  @Required(uuid) id: string;
}
/** The config's own fields are not declared here: validateScoreConfigInput checks them. */
export class ScoreConfigIdInput extends ProjectInput {
  @Required(uuid) id: string;
}
export class ScoreConfigArchiveInput extends ScoreConfigIdInput {
  /** false restores an archived config. */
  @Optional(bool) archived?: boolean;
}
const handScoreValue = {
  test: (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)),
  message: 'must be a number, a category label or true/false, as the score config says',
};
// Kept in the scores table as typed: NUL and unpaired surrogates are refused, not changed.
const handScoreComment = storedText(0, HAND_SCORE_LIMITS.commentLength);
/** A score given by hand on a trace, or on one of its spans (issue 30). */
export class HandScoreCreateInput extends ProjectInput {
  @Required(uuid) traceId: string;
  @Optional(uuid) spanId?: string;
  @Required(uuid) configId: string;
  @Required(handScoreValue) value: number | string | boolean;
  @Optional(handScoreComment) comment?: string;
}
export class HandScoreUpdateInput extends ProjectInput {
  @Required(uuid) id: string;
  @Optional(handScoreValue) value?: number | string | boolean;
  @Optional(handScoreComment) comment?: string;
}
export class HandScoreIdInput extends ProjectInput {
  @Required(uuid) id: string;
}

/** Annotation queues (issue 30). */
export class AnnotationQueueIdInput extends ProjectInput {
  @Required(uuid) queueId: string;
}
export class AnnotationQueueCreateInput extends ProjectInput {
  @Required(queueName) name: string;
  @Optional(queueDescription) description?: string;
  @Optional(queueScoreConfigIds) scoreConfigIds?: string[];
}
export class AnnotationQueueUpdateInput extends AnnotationQueueIdInput {
  @Optional(queueName) name?: string;
  @Optional(queueDescription) description?: string;
  @Optional(queueScoreConfigIds) scoreConfigIds?: string[];
}
export class AnnotationQueueArchiveInput extends AnnotationQueueIdInput {
  /** false restores an archived queue. */
  @Optional(bool) archived?: boolean;
}
export class AnnotationQueueAddItemsInput extends AnnotationQueueIdInput {
  @Required(queueTargets) items: QueueTarget[];
}
/** The trace list's filters (`trace.list` without projectId): the newest matching traces, up to the per-request limit. */
export class AnnotationQueueFilter extends TraceFilterFields {
  @Optional(storableTextList) tags?: string[];
}
export class AnnotationQueueAddFromFilterInput extends AnnotationQueueIdInput {
  @Required(nested(AnnotationQueueFilter)) filter: AnnotationQueueFilter;
}
export class AnnotationQueueItemsInput extends AnnotationQueueIdInput {
  @Optional(oneOf(QUEUE_ITEM_STATUSES)) status?: QueueItemStatus;
  @Optional(anyText) cursor?: string;
}
export class AnnotationQueueNextInput extends AnnotationQueueIdInput {
  /** The item the reviewer is on: the next one is looked for after it (before it with `previous`). */
  @Optional(uuid) afterItemId?: string;
  @Optional(bool) previous?: boolean;
}
export class AnnotationQueueItemInput extends ProjectInput {
  @Required(uuid) itemId: string;
}
