import type { DataSource, EntityManager } from 'typeorm';
import { type PlanName, generateApiKey } from '@app/domain';
import { ApiKeyEntity, MembershipEntity, OrganizationEntity, ProjectEntity, UserEntity } from '../entities';
import { hashPassword } from './passwords';

export interface BootstrapInput {
  email: string;
  password: string;
  orgName: string;
  projectName: string;
  plan?: PlanName;
  keyName?: string;
}

export interface BootstrapResult {
  userId: string;
  orgId: string;
  projectId: string;
  apiKey: string;
  apiKeyId: string;
}

/** Finds a user by e-mail (case-insensitive) or creates one; an existing user's password is kept. */
export async function findOrCreateUser(m: EntityManager, email: string, password: string): Promise<UserEntity> {
  const existing = await m.getRepository(UserEntity).createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email }).getOne();
  if (existing) return existing;
  return m.getRepository(UserEntity).save({ email, passwordHash: await hashPassword(password) });
}

/**
 * Creates (or reuses) a user, an organization the user owns and a project in it, and makes
 * a new API key — the operator's one step from an empty database to an SDK that can send.
 */
export async function bootstrapTenant(db: DataSource, input: BootstrapInput): Promise<BootstrapResult> {
  return db.transaction(async (m) => {
    const user = await findOrCreateUser(m, input.email, input.password);
    let org = await m
      .getRepository(OrganizationEntity)
      .createQueryBuilder('o')
      .innerJoin(MembershipEntity, 'ms', 'ms.org_id = o.id AND ms.user_id = :userId', { userId: user.id })
      .where('o.name = :name', { name: input.orgName })
      .getOne();
    if (!org) {
      org = await m.getRepository(OrganizationEntity).save({ name: input.orgName, plan: input.plan ?? 'free', rateLimitPerSecond: null });
      await m.getRepository(MembershipEntity).save({ orgId: org.id, userId: user.id, role: 'owner' });
    } else if (input.plan && org.plan !== input.plan) {
      await m.getRepository(OrganizationEntity).update(org.id, { plan: input.plan });
    }
    const projects = m.getRepository(ProjectEntity);
    const project = (await projects.findOneBy({ orgId: org.id, name: input.projectName })) ?? (await projects.save({ orgId: org.id, name: input.projectName }));
    const key = generateApiKey();
    const saved = await m.getRepository(ApiKeyEntity).save({
      projectId: project.id,
      name: input.keyName ?? 'bootstrap',
      prefix: key.prefix,
      keyHash: key.hash,
      createdBy: user.id,
      lastUsedAt: null,
      revokedAt: null,
    });
    return { userId: user.id, orgId: org.id, projectId: project.id, apiKey: key.secret, apiKeyId: saved.id };
  });
}
