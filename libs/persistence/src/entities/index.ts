import { ApiKeyEntity } from './api-key.entity';
import { MembershipEntity } from './membership.entity';
import { OrganizationEntity } from './organization.entity';
import { ProjectEntity } from './project.entity';
import { UserEntity } from './user.entity';

export { ApiKeyEntity, MembershipEntity, OrganizationEntity, ProjectEntity, UserEntity };
export { MEMBER_ROLES, type MemberRole } from './membership.entity';

export const ENTITIES = [OrganizationEntity, UserEntity, MembershipEntity, ProjectEntity, ApiKeyEntity];
