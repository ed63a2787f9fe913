import { IsBoolean, IsIn, IsOptional, IsString, IsUUID } from 'class-validator';
import { MEMBER_ROLES, type MemberRole } from '@app/persistence';
import { RequiredString } from '../validation/required-string';
import { EmailAddress } from '../validation/text-fields';

export class OrgInput {
  @IsUUID('all', { message: 'orgId must be a UUID' }) orgId: string;
}
export class OrgCreateInput {
  @RequiredString(200) name: string;
}
export class ProjectCreateInput extends OrgInput {
  @RequiredString(200) name: string;
}
export class ProjectInput {
  @IsUUID('all', { message: 'projectId must be a UUID' }) projectId: string;
}
export class ApiKeyCreateInput extends ProjectInput {
  @RequiredString(200) name: string;
}
export class ApiKeyRevokeInput extends ProjectInput {
  @IsUUID('all', { message: 'id must be a UUID' }) id: string;
}
export class MemberAddInput extends OrgInput {
  @EmailAddress() email: string;
  @IsIn(MEMBER_ROLES, { message: `role must be one of ${MEMBER_ROLES.join(', ')}` }) role: MemberRole;
}
export class MemberRemoveInput extends OrgInput {
  @IsUUID('all', { message: 'userId must be a UUID' }) userId: string;
  @IsOptional() @IsBoolean({ message: 'revokeKeys must be true or false' }) revokeKeys?: boolean;
}
export class SecurityLogInput {
  @IsOptional() @IsString({ message: 'cursor must be a string' }) cursor?: string;
}
export class AuditLogInput extends OrgInput {
  @IsOptional() @IsString({ message: 'cursor must be a string' }) cursor?: string;
}
/** The evaluator's own fields are not declared here: validateEvaluatorInput checks them (see evaluator-input.ts). */
export class EvaluatorInput extends ProjectInput {
  @IsUUID('all', { message: 'id must be a UUID' }) id: string;
}
export class PromptListInput extends ProjectInput {
  @IsOptional() @IsString({ message: 'cursor must be a string' }) cursor?: string;
}
/** The name's own rules (length, characters) are checked by the domain's readPromptName. */
export class PromptVersionsInput extends PromptListInput {
  @IsString({ message: 'name must be a string' }) name: string;
}
export class MonitorIdInput extends ProjectInput {
  @IsUUID('all', { message: 'id must be a UUID' }) id: string;
}
export class MonitorHistoryInput extends MonitorIdInput {
  @IsOptional() @IsString({ message: 'cursor must be a string' }) cursor?: string;
}
