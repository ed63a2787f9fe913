import { MEMBER_ROLES, type MemberRole, Optional, Required, anyText, bool, email, oneOf, requiredText, uuid } from '@app/domain';

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
export class ModelIdInput extends ProjectInput {
  @Required(uuid) id: string;
}
