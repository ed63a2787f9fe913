import {
  HAND_SCORE_LIMITS,
  MEMBER_ROLES,
  type MemberRole,
  Optional,
  Required,
  anyText,
  bool,
  email,
  oneOf,
  requiredText,
  text,
  uuid,
} from '@app/domain';

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
const handScoreComment = text(0, HAND_SCORE_LIMITS.commentLength);
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
